import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../../app-env';
import { tokenOwner, type TokenOwner } from './grants';
import { issuer } from './issuer';

export const oauthIdentity = {
  installation: z.object({
    id: z.number().int(),
    name: z.string(),
    siteName: z.string(),
    apiEndPoint: z.string().meta({ description: 'where to send API requests: the paths start /v2/' }),
  }),
  user: z.object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    role: z.string(),
  }),
};

/** Who the teammate and helpdesk are, as the token answer and userinfo name them (read unless `known`). */
export async function identityOf(c: Context<AppEnv>, installationId: number, userId: number, known?: TokenOwner) {
  const owner = known ?? (await tokenOwner(c.var.db, installationId, userId));
  return {
    installation: {
      id: owner.installationId,
      name: owner.installationName,
      siteName: owner.siteName,
      apiEndPoint: issuer(c),
    },
    user: {
      id: owner.userId,
      firstName: owner.firstName,
      lastName: owner.lastName,
      email: owner.email,
      role: owner.role,
    },
  };
}
