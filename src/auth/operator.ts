import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { ApiError } from '../http/errors';
import { addressGuard } from '../ratelimit/address-guard';
import { presentedSecret } from './credentials';
import { hashSecret } from './secrets';

/** The shortest operator token taken: a guessable one leaves the operator routes off. */
export const MIN_OPERATOR_TOKEN_LENGTH = 32;

const unauthorized = (detail: string) =>
  new ApiError(401, [{ code: 'unauthorized', detail }], { 'WWW-Authenticate': 'Bearer realm="helpdesk-operator"' });

/**
 * The operators' routes (`/operator/...`) take the deployment's `OPERATOR_TOKEN` secret as
 * `Authorization: Bearer <token>`, never an installation's credential: what they show spans every
 * installation. Unset (or shorter than 32 characters), the routes are off: 403. A wrong token
 * counts as a failed authentication of the client's address, as a wrong API key does (429 past
 * the limit). The hashes are compared, so the time taken says nothing of the token.
 */
export const requireOperator: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = c.env.OPERATOR_TOKEN;
  if (!token || token.length < MIN_OPERATOR_TOKEN_LENGTH) {
    throw ApiError.forbidden(
      `the operator routes are off: OPERATOR_TOKEN is not set (at least ${MIN_OPERATOR_TOKEN_LENGTH} characters: wrangler secret put OPERATOR_TOKEN)`,
    );
  }
  const presented = presentedSecret(c.req.header('authorization'));
  if (!presented) throw unauthorized('send the operator token as "Authorization: Bearer <token>"');
  const guard = addressGuard(c);
  await guard?.before();
  if ((await hashSecret(presented)) !== (await hashSecret(token))) {
    await guard?.failed();
    throw unauthorized('the operator token is not valid');
  }
  await next();
};
