// The installations a trigger suite works in: its own, with an inbox that sends from an address on
// a domain the installation proved (a trigger's reply goes out), and another one to refuse.
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation } from '../support/db';
import { verifiedMailDomain } from '../support/mail-domains';

export interface TriggerSite {
  site: SeededInstallation;
  other: SeededInstallation;
  admin: string;
  /** the installation's first inbox */
  inbox: number;
  /** an inbox with no address at the mail domain: it sends from its own, on a domain the installation proved */
  quietInbox: number;
  /** the installation's first two priorities */
  high: number;
  low: number;
}

export async function triggerSite(name: string): Promise<TriggerSite> {
  const site = await newInstallation(name);
  const other = await newInstallation(`${name}-other`);
  const admin = site.users.admin.apiKey;
  const inbox = (await api('/v2/inboxes.json', { key: admin })).body.inboxes[0].id as number;
  await verifiedMailDomain(admin, `${name}.test`);
  const quietInbox = (
    await api('/v2/inboxes.json', {
      method: 'POST',
      key: admin,
      body: { inbox: { name: 'Quiet', email: `quiet@${name}.test` } },
    })
  ).body.inbox.id as number;
  const [high, low] = (await api('/v2/ticketpriorities.json', { key: admin })).body.ticketpriorities as {
    id: number;
  }[];
  return { site, other, admin, inbox, quietInbox, high: high!.id, low: low!.id };
}
