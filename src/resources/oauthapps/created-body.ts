import { z } from 'zod';
import { schemasOf } from '../../engine';
import { oauthAppsResource } from './oauthapps.resource';

const s = schemasOf(oauthAppsResource);

/** The answer of the create and of the secret rotation: the app with its client secret, shown this once. */
export const createdBody = z
  .object({
    oauthapp: s.record.extend({
      clientSecret: z
        .string()
        .nullable()
        .meta({ description: 'the client secret: shown this once, never again; null for a public app' }),
    }),
    included: z.object({}),
  })
  .meta({ id: 'OAuthAppCreatedBody' });
