import type { OAuthScope } from '../db/schema';

/** `desk` holds all `desk:read` allows. */
export const covers = (allowed: readonly OAuthScope[], scope: OAuthScope) =>
  allowed.includes(scope) || (scope === 'desk:read' && allowed.includes('desk'));

/** The scopes of `asked` that `granted` does not cover. */
export function scopesBeyond(granted: readonly OAuthScope[], asked: readonly OAuthScope[]): OAuthScope[] {
  return asked.filter((scope) => !covers(granted, scope));
}

/**
 * What a grant may do now: its scopes within what its app may still ask for. An app narrowed from
 * `desk` to `desk:read` leaves its grants of `desk` reading only, at once.
 */
export function effectiveScopes(granted: readonly OAuthScope[], app: readonly OAuthScope[]): OAuthScope[] {
  const kept = new Set<OAuthScope>();
  for (const scope of granted) {
    if (covers(app, scope)) kept.add(scope);
    else if (scope === 'desk' && covers(app, 'desk:read')) kept.add('desk:read');
  }
  return [...kept];
}
