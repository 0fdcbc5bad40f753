// Installations, users and API keys for the local stack and the tests, written straight to the
// database (there is no sign-up endpoint). Local stack only.
import type pg from 'pg';
import { hashSecret, newApiKey } from '../src/auth/secrets';
import type { UserRole } from '../src/db/schema';
import { provisionInstallation } from '../src/installations/provision';

export interface SeededUser {
  id: number;
  role: UserRole;
  email: string;
  apiKey: string;
}

async function one<T>(client: pg.ClientBase, text: string, values: unknown[]): Promise<T> {
  const { rows } = await client.query(text, values);
  return rows[0] as T;
}

/** Stores a key for the user: the given one, or a new one. Only its hash is kept. */
export async function addApiKey(
  client: pg.ClientBase,
  installationId: number,
  userId: number,
  given?: string,
): Promise<string> {
  const generated = await newApiKey();
  const secret = given ?? generated.secret;
  await client.query(
    `INSERT INTO credentials (installation_id, user_id, kind, name, prefix, secret_hash)
     VALUES ($1, $2, 'api_key', 'seeded', $3, $4) ON CONFLICT (secret_hash) DO NOTHING`,
    [installationId, userId, secret.slice(0, 7), await hashSecret(secret)],
  );
  return secret;
}

export async function addUser(
  client: pg.ClientBase,
  installationId: number,
  role: UserRole,
  apiKey?: string,
): Promise<SeededUser> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await one<{ id: number }>(
    client,
    `INSERT INTO users (installation_id, first_name, last_name, email, role) VALUES ($1, $2, 'Demo', $3, $4) RETURNING id`,
    [installationId, role[0]!.toUpperCase() + role.slice(1), email, role],
  );
  // A seated teammate works every inbox of the demo (collaborators have no seat).
  if (role !== 'collaborator') {
    await client.query(
      `INSERT INTO inbox_users (installation_id, inbox_id, user_id) SELECT installation_id, id, $2 FROM inboxes WHERE installation_id = $1 AND state = 'active'`,
      [installationId, user.id],
    );
  }
  return { id: user.id, role, email, apiKey: await addApiKey(client, installationId, user.id, apiKey) };
}

export interface SeededInstallation {
  id: number;
  siteName: string;
  /** one user of each role, each with a key */
  users: Record<UserRole, SeededUser>;
}

/**
 * An installation made as the operators' command makes it (`provisionInstallation`: its defaults
 * and its owner), plus one user of each other role. The owner's key is `ownerKey` when given.
 */
export async function createInstallation(
  client: pg.ClientBase,
  siteName: string,
  ownerKey?: string,
): Promise<SeededInstallation> {
  const ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const provisioned = await provisionInstallation(client, {
    siteName,
    ownerEmail,
    ownerFirstName: 'Owner',
    ownerLastName: 'Demo',
    ownerKey,
  });
  const users = {
    owner: { id: provisioned.ownerId, role: 'owner', email: ownerEmail, apiKey: provisioned.ownerKey },
  } as Record<UserRole, SeededUser>;
  for (const role of ['admin', 'agent', 'collaborator'] as const) {
    users[role] = await addUser(client, provisioned.installationId, role);
  }
  return { id: provisioned.installationId, siteName, users };
}
