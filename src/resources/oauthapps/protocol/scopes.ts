import { OAUTH_SCOPES, type OAuthScope } from '../../../db/schema';
import { OAuthError } from './oauth-error';

/** The scopes a `scope` parameter names: undefined when absent, `invalid_scope` when it names one we do not have. */
export function requestedScopes(scope: string | undefined): OAuthScope[] | undefined {
  if (scope === undefined) return undefined;
  const names = [...new Set(scope.split(' ').filter(Boolean))];
  const unknown = names.filter((name) => !(OAUTH_SCOPES as readonly string[]).includes(name));
  if (unknown.length || names.length === 0)
    throw new OAuthError(
      'invalid_scope',
      unknown.length ? `no scope ${unknown.join(' ')}; scopes are ${OAUTH_SCOPES.join(', ')}` : 'scope names none',
    );
  return names as OAuthScope[];
}
