import { z } from 'zod';

/** The one error body (the spec's Validator and Error bodies). */
export const errorBodySchema = z
  .object({
    errors: z.array(
      z.object({
        code: z.string().describe('invalid, notFound, conflict, unauthorized, forbidden, tooLarge, unsupportedMediaType, internal'),
        source: z.string().optional().describe('the property, parameter or path part at fault'),
        detail: z.string(),
      }),
    ),
  })
  .meta({ id: 'Error' });
