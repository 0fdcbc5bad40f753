// The tickets benchmark's data: one installation with BENCH_TICKETS tickets (default 1,000,000)
// over 10 inboxes, 4 statuses and 100,000 customers, each with BENCH_ENTRIES_PER_TICKET thread
// entries (default 5: 5,000,000), and every ticket's search document, made by the service's own
// SQL (`searchColumns`). Set-based SQL through `pg`, in batches, with the GIN index built once
// at the end (as a restore would), not row by row.
import pg from 'pg';
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createInstallation } from '../scripts/seed';
import { searchColumns } from '../src/resources/tickets/ticket-search';

export interface TicketBenchData {
  installationId: number;
  ownerKey: string;
  ownerUserId: number;
  inboxIds: number[];
  /** a ticket in the middle of the range, for the GET */
  ticketId: number;
  /** tickets spread over the range, for the replies (each request to one of them) */
  replyTicketIds: number[];
  rows: Record<string, number>;
}

/** Subjects take two of these 20 words (each in about 1 ticket of 10); entry bodies two terms of 5,000 (`term0` ... `term4999`: a ticket has a given term about 1 time in 500). */
const WORDS = [
  'invoice',
  'refund',
  'printer',
  'login',
  'password',
  'delivery',
  'order',
  'broken',
  'account',
  'billing',
  'shipping',
  'upgrade',
  'cancel',
  'error',
  'screen',
  'update',
  'payment',
  'card',
  'export',
  'report',
];
const wordAt = (expr: string) => `(ARRAY['${WORDS.join("','")}'])[1 + ((${expr}) % ${WORDS.length})]`;
const BATCH = 100_000;
/** how many tickets the replies go to: spread out, as replies of a support team are, not queued on one ticket's lock */
const REPLY_TICKETS = 2_000;

export async function seedTickets(
  databaseUrl: string,
  tickets: number,
  entriesPerTicket: number,
  log: (line: string) => void,
): Promise<TicketBenchData> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const installation = await createInstallation(client, `bench-tickets-${Date.now().toString(36)}`);
    const owner = installation.users.owner;
    const i = installation.id;
    await client.query(
      `INSERT INTO inboxes (installation_id, name, email, ticket_status_id, created_by, updated_by)
       SELECT $1, 'Inbox ' || n, 'inbox' || n || '@bench.example.com', 1, $2, $2 FROM generate_series(2, 10) n`,
      [i, owner.id],
    );
    await client.query(
      `INSERT INTO inbox_users (installation_id, inbox_id, user_id, access, created_by)
       SELECT $1, id, $2, 'full', $2 FROM inboxes WHERE installation_id = $1 ON CONFLICT DO NOTHING`,
      [i, owner.id],
    );
    const inboxIds = (
      await client.query(`SELECT id FROM inboxes WHERE installation_id = $1 ORDER BY id`, [i])
    ).rows.map((r) => Number(r.id));
    await client.query(
      `INSERT INTO customers (installation_id, created_by, updated_by, first_name, last_name, email)
       SELECT $1, $2, $2, 'Customer', n::text, 'customer' || n || '@bench.example.com' FROM generate_series(1, 100000) n`,
      [i, owner.id],
    );
    const [firstCustomer] = (
      await client.query(`SELECT min(id)::int AS id FROM customers WHERE installation_id = $1`, [i])
    ).rows;
    await client.query('DROP INDEX IF EXISTS tickets_search_idx');
    for (let from = 1; from <= tickets; from += BATCH) {
      const to = Math.min(tickets, from + BATCH - 1);
      await client.query(
        `INSERT INTO tickets (installation_id, created_by, updated_by, subject, inbox_id, customer_id, status_id, preview_text, created_at, updated_at)
         SELECT $1, $2, $2, initcap(${wordAt('n')}) || ' ' || ${wordAt('n / 7')} || ' #' || n, ($3::int[])[1 + n % 10], $4 + 1 + n % 100000,
                (ARRAY[1, 3, 5, 6])[1 + (n / 10) % 4], 'Seeded', now() - make_interval(mins => ($5 - n)::int), now() - make_interval(mins => ($5 - n)::int)
         FROM generate_series($6::int, $7::int) n`,
        [i, owner.id, inboxIds, firstCustomer.id - 1, tickets, from, to],
      );
      log(`  tickets ${to}`);
    }
    const [range] = (
      await client.query(`SELECT min(id)::int AS lo, max(id)::int AS hi FROM tickets WHERE installation_id = $1`, [i])
    ).rows;
    for (let lo = range.lo; lo <= range.hi; lo += BATCH) {
      const hi = Math.min(range.hi, lo + BATCH - 1);
      await client.query(
        `INSERT INTO ticket_messages (installation_id, ticket_id, thread_type, html_body, text_body, customer_id, created_by, updated_by, created_at, updated_at)
         SELECT t.installation_id, t.id, CASE WHEN k = 3 THEN 'note' ELSE 'message' END, body, body,
                CASE WHEN k % 2 = 1 THEN t.customer_id END, $2, $2, t.created_at + make_interval(mins => k), t.created_at + make_interval(mins => k)
           FROM tickets t, generate_series(1, $3::int) k,
                LATERAL (SELECT 'About the term' || ((t.id * 31 + k * 7919) % 5000) || ' and the term' || ((t.id * 17 + k * 104729) % 5000)
                        || ': please see message ' || k || ' of ticket ' || t.id AS body) b
          WHERE t.installation_id = $1 AND t.id BETWEEN $4 AND $5`,
        [i, owner.id, entriesPerTicket, lo, hi],
      );
      log(`  entries for tickets up to ${hi}`);
    }
    const dialect = new PgDialect();
    const document = dialect.sqlToQuery(sql`${searchColumns}`);
    const n = document.params.length;
    for (let lo = range.lo; lo <= range.hi; lo += BATCH) {
      const hi = Math.min(range.hi, lo + BATCH - 1);
      await client.query(
        `UPDATE tickets t SET ${document.sql} FROM customers c WHERE c.id = t.customer_id AND t.id BETWEEN $${n + 1} AND $${n + 2}`,
        [...document.params, lo, hi],
      );
      log(`  search documents up to ${hi}`);
    }
    await client.query('CREATE INDEX tickets_search_idx ON tickets USING gin (search_vector)');
    // as autovacuum leaves a table at rest: statistics, and the visibility map index-only scans read
    await client.query('VACUUM ANALYZE');
    const count = async (table: string) =>
      Number((await client.query(`SELECT count(*) FROM ${table} WHERE installation_id = $1`, [i])).rows[0].count);
    return {
      installationId: i,
      ownerKey: owner.apiKey,
      ownerUserId: owner.id,
      inboxIds,
      ticketId: Math.floor((range.lo + range.hi) / 2),
      replyTicketIds: Array.from(
        { length: Math.min(REPLY_TICKETS, range.hi - range.lo + 1) },
        (_, k) =>
          range.lo + Math.floor((k * (range.hi - range.lo + 1)) / Math.min(REPLY_TICKETS, range.hi - range.lo + 1)),
      ),
      rows: {
        tickets: await count('tickets'),
        ticket_messages: await count('ticket_messages'),
        customers: await count('customers'),
      },
    };
  } finally {
    await client.end();
  }
}
