import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';

/**
 * The service's own triggers, which every installation has and a team only switches on or off
 * (`isSystem`): the platform's are the mail notifications to teammates, and so are ours. They
 * carry no conditions or actions of the codes' kind: the mail module sends what each says
 * (`src/resources/mail/outbound/teammate-notices.subscriber.ts`) while it is `active`.
 */
export const SYSTEM_TRIGGERS = [
  {
    key: 'notify.assigned',
    name: 'Tell an agent of a ticket assigned to them',
    description:
      "Mails the agent a ticket is assigned to (by someone else, or by a rule), with the ticket's latest message.",
    state: 'active',
  },
  {
    key: 'notify.customerReply',
    name: "Tell the assigned agent of the customer's reply",
    description: "Mails the ticket's agent each message its customer adds to it.",
    state: 'active',
  },
  {
    key: 'notify.newTicket',
    name: "Tell an inbox's teammates of a new unassigned ticket",
    description:
      'Mails every teammate who works the whole inbox of a new ticket no one is assigned to. Off to start with: it is a lot of mail.',
    state: 'inactive',
  },
] as const;

export type SystemTriggerKey = (typeof SYSTEM_TRIGGERS)[number]['key'];

/** The installation's system triggers switched on. */
export async function systemTriggersOn(db: Queryable, installationId: number): Promise<Set<SystemTriggerKey>> {
  const { rows } = await db.execute(
    sql`SELECT system_key FROM triggers WHERE installation_id = ${installationId} AND is_system AND state = 'active' AND system_key IS NOT NULL`,
  );
  return new Set(rows.map((row) => row.system_key as SystemTriggerKey));
}
