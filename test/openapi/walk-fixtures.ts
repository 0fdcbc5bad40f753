// What the walk's examples need that no operation of the API makes: records the service writes
// itself (a scan's anomaly, a chat's message, a dead queue message), made here as it would make
// them; and the world outside (a webhook receiver, the project-management product, a DNS record),
// as the tests' stand-ins. The examples name the world by the addresses a reader would use
// (`https://hooks.acme.example/desk`); the walk sends the stand-ins' instead, and the recorded
// answers say the reader's again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { rows } from '../support/db';
import { TEST_PUBLIC_URL } from '../mail/limits';
import { send, sentTo } from '../mail/support';
import { publishTxt } from '../support/mail-domains';
import { startPmServer, type PmServer } from '../support/pm-server';
import { eventually } from '../support/room';
import type { WalkRecords } from './walk-records';

/** A task of the project-management product that `linkTicketTask`'s example names. */
export const EXAMPLE_TASK_ID = 4711;

export interface WalkWorld {
  /** the reader's address or secret in an example → the stand-in's, as sent */
  sent: Array<[string, string]>;
  close(): Promise<void>;
}

/** A webhook receiver that answers every delivery 200, on 127.0.0.1. */
async function startReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/desk`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The stand-ins of the world the examples name. */
export async function startWorld(): Promise<WalkWorld> {
  const receiver = await startReceiver();
  const pm: PmServer = await startPmServer();
  pm.tasks.set(EXAMPLE_TASK_ID, { id: EXAMPLE_TASK_ID, name: 'Replace the printer at the front desk' });
  return {
    sent: [
      ['https://hooks.acme.example/desk', receiver.url],
      ['https://projects.acme.example', pm.url],
      ['your-project-tool-token', pm.token],
    ],
    close: async () => {
      await receiver.close();
      await pm.close();
    },
  };
}

/** `value` with every string that holds one address or secret of the world replaced by the other. */
export function swapped(value: unknown, pairs: Array<[string, string]>): unknown {
  if (typeof value === 'string') return pairs.reduce((text, [from, to]) => text.split(from).join(to), value);
  if (Array.isArray(value)) return value.map((item) => swapped(item, pairs));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, swapped(item, pairs)]));
}

type Fixture = (site: SeededInstallation, records: WalkRecords) => Promise<number | undefined>;

const inserted = async (text: string, values: unknown[]) => (await rows<{ id: number }>(text, values))[0]?.id;

/** Records of types no operation creates, made as the part of the service that writes them would. */
export const MADE_ELSEWHERE: Record<string, Fixture> = {
  // the scheduled scan's
  anomalies: (site) =>
    inserted(
      `INSERT INTO anomalies (installation_id, name, details, status) VALUES ($1, 'ticketSpike', '{"tickets": 48, "usual": 12}', 'open') RETURNING id`,
      [site.id],
    ),
  // the templates of the platform's code-template editor, whose sentiment settings the API sets
  codetemplates: (site) =>
    inserted(
      `INSERT INTO code_templates (installation_id, name, body, state) VALUES ($1, 'Apology', 'Hi {{name}}, sorry for the wait.', 'active') RETURNING id`,
      [site.id],
    ),
  // a queue's message its consumer failed on six times
  deadletters: (site) =>
    inserted(
      `INSERT INTO dead_letters (installation_id, queue, message_id, body, attempts, sent_at, dead_at)
     VALUES ($1, 'helpdesk-jobs', $2, $3, 6, now() - interval '1 hour', now()) RETURNING id`,
      [site.id, `walk-${site.id}-${Math.random()}`, JSON.stringify({ kind: 'events.drain', installationId: site.id })],
    ),
  // a company import waiting for the queue (the walk's own import finishes too soon to be cancelled)
  backgroundjobs: (site) =>
    inserted(
      `INSERT INTO background_jobs (installation_id, type, action, status, created_by, rows_total) VALUES ($1, 1, 1, 'queued', $2, 2) RETURNING id`,
      [site.id, site.users.owner.id],
    ),
  // a teammate's consent in the app login flow
  oauthgrants: async (site, records) => {
    const app = await records.idOf('oauthapps');
    return inserted(
      `INSERT INTO oauth_grants (installation_id, app_id, user_id, scopes, created_by, updated_by) VALUES ($1, $2, $3, '{desk}', $3, $3) RETURNING id`,
      [site.id, app, site.users.owner.id],
    );
  },
  // a chat's message, as the room stores it
  conversationmessages: async (site, records) => {
    const conversation = await records.idOf('conversations');
    return inserted(
      `INSERT INTO conversation_messages (installation_id, conversation_id, author, user_id, message, client_id, sent_at)
       VALUES ($1, $2, 'agent', $3, 'Our delivery times are two to three working days.', md5(random()::text), now()) RETURNING id`,
      [site.id, conversation, site.users.owner.id],
    );
  },
};

/** What an operation needs of the world just before it is sent. */
export const BEFORE_SENDING: Record<string, (records: WalkRecords, key: string) => Promise<void>> = {
  // the file the walk uploaded, attached to a note on the last ticket, as a teammate attaches one
  downloadTicketFile: async (records, key) => {
    const [ticket, file] = [records.allMade('tickets').at(-1), records.allMade('files').at(-1)];
    await api(`/v2/tickets/${ticket}/messages.json`, {
      method: 'POST',
      key,
      body: { message: '<p>The invoice, attached.</p>', threadType: 'note', files: [{ id: file }] },
    });
  },
  // the claimed domain's TXT record, published as its owner would
  verifyMailDomain: async (records) => {
    const domain = records.lastMade('maildomains') as { dnsRecord: { name: string; value: string } };
    await publishTxt(domain.dnsRecord.name, [domain.dnsRecord.value]);
  },
};

/** Memoizes a fixture for the walk: made once, however many operations name it. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * The token of the link mailed to a widget visitor who gives a customer's email (the contact's
 * email proof): the visitor starts a chat with the last contact form's token, as the widget does.
 */
export async function proofToken(records: WalkRecords, customerEmail: string): Promise<string | undefined> {
  const form = records.lastMade('contactforms') as { token: string };
  const chat = await api('/v2/conversations.json', {
    method: 'POST',
    key: form.token,
    body: { conversation: { contact: { name: 'Grace', email: customerEmail } } },
  });
  if (chat.status !== 201) return undefined;
  return eventually(async () => {
    for (const mail of await sentTo(customerEmail)) {
      const token = new RegExp(
        `${TEST_PUBLIC_URL.replace(/\./g, '\\.')}/v2/contacts/verify/(hdv_[A-Za-z0-9]{40})`,
      ).exec(mail.text ?? '')?.[1];
      if (token) return token;
    }
    return undefined;
  }, 20_000);
}

/** A thread entry that came as mail to the installation's address: the ticket and the entry, whose original message is kept. */
export async function mailedEntry(
  site: SeededInstallation,
  key: string,
): Promise<{ ticket: number; entry: number } | undefined> {
  const subject = `Invoice 2026-11 (walk ${site.id})`;
  const sent = await send({
    from: 'Lin Customer <lin@customer.example>',
    to: `support@${site.siteName}.mail.localhost`,
    subject,
    body: 'The November invoice charges us twice.',
  });
  if (sent.status >= 300) return undefined;
  return eventually(async () => {
    const found = await api('/v2/tickets.json', { key, query: { filter: { subject: { $eq: subject } } } });
    const ticket = found.body?.tickets?.[0]?.id as number | undefined;
    if (ticket === undefined) return undefined;
    const entries = await api(`/v2/tickets/${ticket}/messages.json`, { key });
    const entry = entries.body?.messages?.[0]?.id as number | undefined;
    return entry === undefined ? undefined : { ticket, entry };
  }, 20_000);
}
