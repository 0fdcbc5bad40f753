import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { forgetCredentials } from '../../auth/authenticate';
import { refuseWhen, type RefusalStatus } from '../../db/refusal';
import { users, type UserRole } from '../../db/schema';
import type { WriteContext } from '../../engine';
import { ApiError } from '../../http/errors';

/** Roles that run the installation: only an owner makes, changes or removes them. */
const RUNS_IT: readonly UserRole[] = ['owner', 'admin'];

function roleOf(who: Actor): UserRole | undefined {
  return who.kind === 'teammate' ? who.role : undefined;
}

function requireManager(who: Actor, detail: string): void {
  if (!RUNS_IT.includes(roleOf(who) as UserRole)) throw ApiError.forbidden(detail);
}

/**
 * Locks the installation's live owners, then the teammate, always in that order (so two owners
 * demoting each other wait for one another instead of deadlocking), and answers the teammate's
 * role (undefined when there is none: the engine answers 404) and the owners' ids.
 */
async function lockTeammate(
  { tx, who }: WriteContext,
  id: number,
): Promise<{ role: UserRole | undefined; owners: number[] }> {
  const owners = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.installationId, who.installationId), eq(users.role, 'owner'), eq(users.state, 'active')))
    .orderBy(users.id)
    .for('update');
  const [row] = await tx
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, id), eq(users.installationId, who.installationId), eq(users.state, 'active')))
    .for('update');
  return { role: row?.role, owners: owners.map((owner) => owner.id) };
}

/** 409 when the teammate is the installation's last live owner. */
function refuseLastOwner(owners: number[], id: number, verb: string): void {
  if (owners.length <= 1 && owners.includes(id)) {
    throw ApiError.conflict(
      'id',
      `user ${id} is the installation's last owner and cannot be ${verb}; make another teammate owner first`,
    );
  }
}

export const OWNER_OR_ADMIN_IS_AN_OWNERS = 'only an owner may make, change or remove an owner or admin';

/** Making, changing or removing an owner or admin, or acting for one, is an owner's. */
export function requireOwnerFor(who: Actor, ...roles: (UserRole | undefined)[]): void {
  if (roles.some((role) => role !== undefined && RUNS_IT.includes(role)) && roleOf(who) !== 'owner') {
    throw ApiError.forbidden(OWNER_OR_ADMIN_IS_AN_OWNERS);
  }
}

/**
 * Who may write a teammate: an owner or admin adds one and changes anyone's profile; every
 * teammate changes their own profile but not their own role; only an owner makes or removes an
 * owner or admin; the last owner stays one.
 */
export async function checkTeammateWrite(
  context: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  const { who } = context;
  const wanted = record.role as UserRole | undefined;
  if (id === undefined) {
    checkNewTeammate(who, record);
    return;
  }
  const { role: current, owners } = await lockTeammate(context, id);
  if (current === undefined) return;
  const self = who.userId === id;
  if (!self) requireManager(who, "a teammate changes only their own profile; an owner or admin changes others'");
  if (wanted === undefined || wanted === current) return;
  if (self && roleOf(who) !== 'owner') throw ApiError.forbidden('a teammate cannot change their own role');
  requireManager(who, 'only an owner or admin changes roles');
  requireOwnerFor(who, current, wanted);
  if (current === 'owner') refuseLastOwner(owners, id, 'demoted');
}

/** A new teammate: added by an owner or admin, an agent unless the body says, an owner or admin only by an owner. */
function checkNewTeammate(who: Actor, record: Record<string, unknown>): void {
  requireManager(who, 'only an owner or admin adds teammates');
  record.role ??= 'agent';
  requireOwnerFor(who, record.role as UserRole);
}

/** `checkTeammateWrite` for a write sent as one batch: a create's rules need no database; an update's are `teammateWriteChecks`. */
export function planTeammateWrite(who: Actor, record: Record<string, unknown>, id: number | undefined): boolean {
  if (id === undefined) checkNewTeammate(who, record);
  return true;
}

/**
 * An update's rules as statements of its batch, in `checkTeammateWrite`'s order: the owners
 * locked, then the teammate, each rule a check over the teammate's stored role (none when there
 * is no such teammate: the update answers 404). What hangs on the caller alone is decided here.
 */
export function teammateWriteChecks(who: Actor, record: Record<string, unknown>, id: number | undefined): SQL[] {
  if (id === undefined) return [];
  const wanted = record.role as UserRole | undefined;
  const self = who.userId === id;
  const manager = RUNS_IT.includes(roleOf(who) as UserRole);
  const owner = roleOf(who) === 'owner';
  const changed = wanted === undefined ? sql`false` : sql`${users.role} <> ${wanted}`;
  const rules: TeammateRule[] = [];
  const forbid = (when: SQL, detail: string) => rules.push({ when, status: 403, source: '', detail });
  if (!self && !manager)
    forbid(sql`true`, "a teammate changes only their own profile; an owner or admin changes others'");
  if (self && !owner) forbid(changed, 'a teammate cannot change their own role');
  if (!manager) forbid(changed, 'only an owner or admin changes roles');
  if (!owner)
    forbid(
      sql`${changed} AND (${users.role} IN ('owner', 'admin') OR ${RUNS_IT.includes(wanted!) ? sql`true` : sql`false`})`,
      OWNER_OR_ADMIN_IS_AN_OWNERS,
    );
  const lastOwner = sql`${changed} AND ${lastOwnerSql(who)}`;
  rules.push({
    when: lastOwner,
    status: 409,
    source: 'id',
    detail: `user ${id} is the installation's last owner and cannot be demoted; make another teammate owner first`,
  });
  return lockedTeammateChecks(who, id, rules);
}

type TeammateRule = { when: SQL; status: RefusalStatus; source: string; detail: string };

/** The owners locked, then the teammate, then each rule a check over the teammate as stored (none when there is no such teammate). */
function lockedTeammateChecks(who: Actor, id: number, rules: TeammateRule[]): SQL[] {
  const live = (condition: SQL) =>
    and(eq(users.installationId, who.installationId), eq(users.state, 'active'), condition)!;
  const teammate = live(eq(users.id, id));
  return [
    sql`SELECT ${users.id} FROM ${users} WHERE ${live(eq(users.role, 'owner'))} ORDER BY ${users.id} FOR UPDATE`,
    sql`SELECT ${users.id} FROM ${users} WHERE ${teammate} FOR UPDATE`,
    ...rules.map(({ when, status, source, detail }) =>
      refuseWhen(sql`EXISTS (SELECT 1 FROM ${users} WHERE ${teammate} AND ${when})`, status, source, detail),
    ),
  ];
}

/** The stored teammate is the installation's last live owner (SQL over `users`, the teammate). */
const lastOwnerSql = (who: Actor) =>
  sql`${users.role} = 'owner' AND (SELECT count(*) FROM ${users} o WHERE o.installation_id = ${who.installationId} AND o.role = 'owner' AND o.state = 'active') <= 1`;

/** `checkTeammateDelete` as statements of the delete's batch: the caller's role decided here, the teammate's as stored. */
export function teammateDeleteChecks(who: Actor, id: number): SQL[] {
  requireManager(who, 'only an owner or admin deactivates teammates');
  const rules: TeammateRule[] = [];
  if (roleOf(who) !== 'owner')
    rules.push({
      when: sql`${users.role} IN ('owner', 'admin')`,
      status: 403,
      source: '',
      detail: OWNER_OR_ADMIN_IS_AN_OWNERS,
    });
  rules.push({
    when: lastOwnerSql(who),
    status: 409,
    source: 'id',
    detail: `user ${id} is the installation's last owner and cannot be removed; make another teammate owner first`,
  });
  return lockedTeammateChecks(who, id, rules);
}

/** Deactivating a teammate: an owner's or admin's, an owner or admin only by an owner, never the last owner. */
export async function checkTeammateDelete(context: WriteContext, id: number): Promise<void> {
  requireManager(context.who, 'only an owner or admin deactivates teammates');
  const { role: current, owners } = await lockTeammate(context, id);
  if (current === undefined) return;
  requireOwnerFor(context.who, current);
  if (current === 'owner') refuseLastOwner(owners, id, 'removed');
}

/** A changed role or a deactivation, once committed, reaches this isolate's remembered credentials at once (others within 30 s). */
export function forgetTeammate(id: number): void {
  forgetCredentials({ userId: id });
}
