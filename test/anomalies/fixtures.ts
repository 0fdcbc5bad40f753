import { rows } from '../support/db';
export { expectError } from '../support/errors';

export interface AnomalyRow {
  name: string;
  customerId?: number | null;
  inboxId?: number | null;
  userId?: number | null;
  details?: unknown;
  status?: 'open' | 'cleared';
  clearedAt?: string | null;
  clearedBy?: number | null;
  clearNote?: string | null;
  state?: 'active' | 'deleted';
}

/** Anomalies have no create endpoint (the scheduled scan makes them): tests insert them. */
export async function insertAnomaly(installationId: number, a: AnomalyRow): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO anomalies (installation_id, name, customer_id, inbox_id, user_id, details, status, cleared_at, cleared_by, clear_note, state,
                            deleted_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $11 = 'deleted' THEN now() END, now() - interval '1 hour') RETURNING id`,
    [
      installationId,
      a.name,
      a.customerId ?? null,
      a.inboxId ?? null,
      a.userId ?? null,
      a.details === undefined ? null : JSON.stringify(a.details),
      a.status ?? 'open',
      a.clearedAt ?? null,
      a.clearedBy ?? null,
      a.clearNote ?? null,
      a.state ?? 'active',
    ],
  );
  return row!.id;
}

/** Every anomaly row of the installations, whole: a refused request must leave them exactly as they were. */
export async function anomalyRows(installationIds: number[]) {
  return rows(`SELECT to_jsonb(a) AS row FROM anomalies a WHERE installation_id = ANY($1) ORDER BY id`, [
    installationIds,
  ]);
}
