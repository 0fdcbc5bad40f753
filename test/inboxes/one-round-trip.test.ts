// An inbox's create or update that names no address and no password is one exchange with the
// database (one HTTP batch): its members, its default status checked, a new inbox offered the
// ticket types and custom fields that ask for inboxes made later; a refusal inside that exchange
// answers the same 4xx as ever and leaves nothing written. A write naming an address or a password
// is interactive still (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { eventsSince, lastEventId } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let admin: string;
let support: number;

beforeAll(async () => {
  site = await newInstallation('inbox-trips');
  other = await newInstallation('inbox-trips-other');
  admin = site.users.admin.apiKey;
  // the credential is looked up once, then remembered: the requests below are the write alone
  support = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id;
});

/** The request's answer and its database round trips, from its log line. */
const tripsOf = (path: string, method: string, body: unknown, query?: Record<string, string>) => withRoundTrips(path, { key: admin, method, body, query });

describe('inboxes in one round trip', () => {
  it('creates an inbox with members, offered the custom fields that ask for inboxes made later, and updates it, in one exchange each', async () => {
    const field = (await api('/v2/customfields.json', { method: 'POST', key: admin, body: { customfield: { agentLabel: 'Trip joins', kind: 'text', inboxes: [{ id: support }] } } })).body.customfield;
    const made = await tripsOf('/v2/inboxes.json', 'POST', { inbox: { name: 'Trip chat', localPart: 'trip-chat', ticketstatus: { id: 3 }, users: [{ id: site.users.agent.id, meta: { access: 'restricted' } }] } }, { includes: 'users' });
    expect(made.answer.status, made.answer.text).toBe(201);
    expect(made.trips).toBe(1);
    const inbox = made.answer.body.inbox;
    expect(inbox.users).toEqual([{ id: site.users.agent.id, type: 'users', meta: { access: 'restricted' } }]);
    expect(await rows(`SELECT inbox_id FROM custom_field_inboxes WHERE custom_field_id = $1 ORDER BY inbox_id`, [field.id])).toEqual([{ inbox_id: support }, { inbox_id: inbox.id }]);

    const changed = await tripsOf(`/v2/inboxes/${inbox.id}.json`, 'PATCH', { inbox: { name: 'Trip chats', autoReplyEnabled: true, smtpPassword: null, users: [{ id: site.users.admin.id }] } });
    expect(changed.answer.status, changed.answer.text).toBe(200);
    expect(changed.trips).toBe(1);
    expect(changed.answer.body.inbox).toMatchObject({ name: 'Trip chats', autoReplyEnabled: true, hasSmtpPassword: false });
  });

  it("refuses another installation's status or teammate in the same exchange, writing nothing", async () => {
    const made = await api('/v2/ticketstatuses.json', { method: 'POST', key: other.users.admin.apiKey, body: { ticketstatus: { name: 'Theirs', code: 'waiting' } } });
    expect(made.status, made.text).toBe(201);
    const theirStatus = made.body.ticketstatus.id as number;
    const theirs = other.users.agent.id;
    const mark = await lastEventId(site.id);
    for (const [body, source, detail] of [
      [{ inbox: { name: 'Trip refused', ticketstatus: { id: theirStatus } } }, 'inbox.ticketstatus', `no ticketstatuses ${theirStatus} here`],
      [{ inbox: { name: 'Trip refused', users: [{ id: theirs }] } }, 'inbox.users[0].id', `no users ${theirs} here`],
    ] as const) {
      for (const [path, method] of [['/v2/inboxes.json', 'POST'], [`/v2/inboxes/${support}.json`, 'PATCH']] as const) {
        const { answer, trips } = await tripsOf(path, method, body);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.errors).toEqual([{ code: 'invalid', source, detail }]);
        expect(trips).toBe(1);
      }
    }
    expect(await eventsSince(site.id, mark)).toEqual([]);
    expect(await rows(`SELECT count(*)::int AS n FROM inboxes WHERE installation_id = $1 AND name = 'Trip refused'`, [site.id])).toEqual([{ n: 0 }]);
  });
});
