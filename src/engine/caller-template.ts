import { fillPlaceholders, sql, type Query } from 'drizzle-orm';
import type { Actor } from '../auth/principal';
import { partsDependOnCaller } from './read-parts';
import type { ResourceDeclaration } from './types';

/*
 * A statement rendered to text once serves every caller of its shape: the caller's ids are
 * placeholders (`callerTemplate`), filled per request (`callerValues`), and a fragment rendered
 * once is spliced into a statement rendered per request (`spliced`).
 */

/**
 * What a statement's text may depend on in its caller: their kind and role (an agent's scope is
 * another rule than an owner's), never their ids, which `callerTemplate` leaves as placeholders.
 */
export function callerShape(resource: ResourceDeclaration, includes: readonly string[], who: Actor): string {
  if (!resource.scope && !partsDependOnCaller(resource, includes)) return 'anyone';
  return who.kind === 'teammate'
    ? `teammate:${who.role}`
    : `system:${who.part}:${who.userId === null ? 'nobody' : 'user'}`;
}

/**
 * The caller with their ids as placeholders: a statement rendered for it serves every caller of
 * its shape. Scope rules and computed fields only put a caller's ids into SQL (test/engine/
 * prepared-statements.test.ts checks, for every resource and caller shape, that the filled
 * statement is the one rendered for the caller itself).
 */
export function callerTemplate(who: Actor): Actor {
  const placeholder = (name: string) => sql.placeholder(name) as unknown as number;
  return {
    ...who,
    installationId: placeholder('installationId'),
    userId: who.userId === null ? null : placeholder('userId'),
  } as Actor;
}

/** The values of `callerTemplate`'s placeholders. */
export function callerValues(who: Actor): Record<string, unknown> {
  return { installationId: who.installationId, userId: who.userId };
}

export const SELECT_MARK = '/* the page select */';
const PARAMETER = /\$(\d+)/g;

/** Whether every `$` of a rendered fragment's text is one of its parameters (nothing in a literal or a name would be renumbered). */
export function spliceable(fragment: Query): boolean {
  const marks = fragment.sql.split('$').length - 1;
  const named = [...fragment.sql.matchAll(PARAMETER)].map(([, n]) => Number(n));
  return marks === named.length && named.every((n) => n >= 1 && n <= fragment.params.length);
}

/** `around` with `fragment` (its placeholders filled from `values`) in place of `SELECT_MARK`, the fragment's parameters numbered after its own. */
export function spliced(
  around: Query,
  fragment: Query,
  values: Record<string, unknown>,
): { sql: string; params: unknown[] } {
  const shift = around.params.length;
  const text = fragment.sql.replace(PARAMETER, (_, n: string) => `$${Number(n) + shift}`);
  const [before, after, ...more] = around.sql.split(SELECT_MARK);
  if (after === undefined || more.length) throw new Error('a page statement without exactly one place for its select');
  return { sql: before + text + after, params: [...around.params, ...fillPlaceholders(fragment.params, values)] };
}
