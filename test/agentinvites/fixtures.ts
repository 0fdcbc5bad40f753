import type pg from 'pg';
import { expect } from 'vitest';
import { addUser, type SeededUser } from '../../scripts/seed';
import type { UserRole } from '../../src/db/schema';
import { api } from '../support/api';
import { db, rows } from '../support/db';
export { expectError } from '../support/errors';

/** Another teammate of the installation, with a key of their own. */
export function newUser(installationId: number, role: UserRole = 'collaborator'): Promise<SeededUser> {
  return addUser(db() as unknown as pg.ClientBase, installationId, role);
}

/** A collaborator's request for a seat, made through the API. */
export async function ask(user: SeededUser, message?: string) {
  const response = await api('/v2/agentinvites.json', {
    method: 'POST',
    key: user.apiKey,
    body: { agentinvite: message === undefined ? {} : { message } },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.agentinvite as { id: number; [name: string]: unknown };
}

/** The rows a refused request must leave as they were: invites and users of the installations. */
export async function snapshot(installationIds: number[]) {
  return {
    invites: await rows(`SELECT to_jsonb(i) AS row FROM agent_invites i WHERE installation_id = ANY($1) ORDER BY id`, [
      installationIds,
    ]),
    users: await rows(`SELECT id, role, updated_at::text FROM users WHERE installation_id = ANY($1) ORDER BY id`, [
      installationIds,
    ]),
  };
}

export async function roleOf(userId: number): Promise<string> {
  return (await rows<{ role: string }>('SELECT role FROM users WHERE id = $1', [userId]))[0]!.role;
}
