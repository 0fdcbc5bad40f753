import { rows } from '../support/db';
export { expectError } from '../support/errors';

/** Every announcement row of the installations, whole: a refused request must leave them as they were. */
export async function announcementRows(installationIds: number[]) {
  return rows(`SELECT to_jsonb(a) AS row FROM announcements a WHERE installation_id = ANY($1) ORDER BY id`, [
    installationIds,
  ]);
}

/** An announcement written straight to the database, at times relative to now. */
export async function insertAnnouncement(
  installationId: number,
  a: { title: string; audience?: string; publishedAgo?: string; expiresIn?: string | null; state?: string },
): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO announcements (installation_id, title, body, audience, published_at, expires_at, state)
     VALUES ($1, $2, 'Body of ' || $2, $3, now() - $4::interval, now() + $5::interval, $6) RETURNING id`,
    [
      installationId,
      a.title,
      a.audience ?? 'everyone',
      a.publishedAgo ?? '1 minute',
      a.expiresIn ?? null,
      a.state ?? 'active',
    ],
  );
  return row!.id;
}
