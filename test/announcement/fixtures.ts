import { expect } from 'vitest';
import type { ApiResponse } from '../support/api';
import { rows } from '../support/db';

/** Every announcement row of the installations, whole: a refused request must leave them as they were. */
export async function announcementRows(installationIds: number[]) {
  return rows(`SELECT to_jsonb(a) AS row FROM announcements a WHERE installation_id = ANY($1) ORDER BY id`, [installationIds]);
}

/** An announcement written straight to the database, at times relative to now. */
export async function insertAnnouncement(
  installationId: number,
  a: { title: string; audience?: string; publishedAgo?: string; expiresIn?: string | null; state?: string },
): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO announcements (installation_id, title, body, audience, published_at, expires_at, state)
     VALUES ($1, $2, 'Body of ' || $2, $3, now() - $4::interval, now() + $5::interval, $6) RETURNING id`,
    [installationId, a.title, a.audience ?? 'everyone', a.publishedAgo ?? '1 minute', a.expiresIn ?? null, a.state ?? 'active'],
  );
  return row!.id;
}

/** The one error body, with an entry naming the culprit. */
export function expectError(response: ApiResponse, status: number, source: string | RegExp, detail?: RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(Object.keys(response.body ?? {}), response.text).toEqual(['errors']);
  const errors = response.body.errors as { code: string; source?: string; detail: string }[];
  const match = errors.find((e) => (typeof source === 'string' ? e.source === source : source.test(e.source ?? '')));
  expect(match, `no error names ${String(source)}: ${response.text}`).toBeDefined();
  if (detail) expect(match!.detail).toMatch(detail);
}
