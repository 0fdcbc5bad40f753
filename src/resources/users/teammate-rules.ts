import { and, eq } from 'drizzle-orm';
import type { Actor } from '../../auth/principal';
import { forgetCredentials } from '../../auth/authenticate';
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
async function lockTeammate({ tx, who }: WriteContext, id: number): Promise<{ role: UserRole | undefined; owners: number[] }> {
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
    throw ApiError.conflict('id', `user ${id} is the installation's last owner and cannot be ${verb}; make another teammate owner first`);
  }
}

/** Making, changing or removing an owner or admin, or acting for one, is an owner's. */
export function requireOwnerFor(who: Actor, ...roles: (UserRole | undefined)[]): void {
  if (roles.some((role) => role !== undefined && RUNS_IT.includes(role)) && roleOf(who) !== 'owner') {
    throw ApiError.forbidden('only an owner may make, change or remove an owner or admin');
  }
}

/**
 * Who may write a teammate: an owner or admin adds one and changes anyone's profile; every
 * teammate changes their own profile but not their own role; only an owner makes or removes an
 * owner or admin; the last owner stays one.
 */
export async function checkTeammateWrite(context: WriteContext, record: Record<string, unknown>, id: number | undefined): Promise<void> {
  const { who } = context;
  const wanted = record.role as UserRole | undefined;
  if (id === undefined) {
    requireManager(who, 'only an owner or admin adds teammates');
    record.role ??= 'agent';
    requireOwnerFor(who, record.role as UserRole);
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
