// Replies racing on one ticket: each waits for the ticket's lock, and none is told the ticket is not
// there because the one before it changed its status meanwhile (a locking read joined to the
// status would drop the row when Postgres re-checks it).
import { beforeAll, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';

let site: SeededInstallation;

beforeAll(async () => {
  site = await newInstallation('concurrent-replies');
});

it('answers every one of many replies racing on a ticket whose status the first one changes', async () => {
  const key = site.users.owner.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key })).body.inboxes[0].id;
  for (let round = 0; round < 3; round++) {
    const made = await api('/v2/tickets.json', {
      method: 'POST',
      key,
      body: { ticket: { subject: `Race ${round}`, inbox, customer: { email: 'race@concurrent.test' }, message: 'Go' } },
    });
    const id = made.body.ticket.id as number;
    // the first reply moves the active ticket to waiting; the others waited on its lock meanwhile
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api(`/v2/tickets/${id}/messages.json`, { method: 'POST', key, body: { message: `Reply ${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(
      await rows(
        "SELECT count(*)::int AS n FROM ticket_messages WHERE ticket_id = $1 AND thread_type = 'message' AND customer_id IS NULL",
        [id],
      ),
    ).toEqual([{ n: 8 }]);
  }
});
