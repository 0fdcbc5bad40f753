import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import { clockMinutesBetween, type WorkingHours } from '../../lib/working-time';
import { FIELD, OPERATOR, TIME_FIELDS } from './trigger-codes';
import type { StoredTrigger } from './trigger-rules';

/** A ticket as conditions read it. */
export interface TicketFacts {
  id: number;
  inboxId: number;
  statusId: number;
  statusCode: string;
  priorityId: number | null;
  typeId: number | null;
  sourceId: number | null;
  sourceName: string;
  agentId: number | null;
  customerId: number;
  customerEmail: string;
  customerFirstName: string;
  customerLastName: string;
  subject: string;
  body: string;
  tags: number[];
  companies: number[];
  fields: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  lastCustomerAt: Date | null;
  statusSince: Date;
}

/** The ticket's facts, or undefined when it is not a live ticket of the installation. */
export async function ticketFacts(
  db: Queryable,
  installationId: number,
  ticketId: number,
  lock = false,
): Promise<TicketFacts | undefined> {
  // locked first, alone: a locking read with joins drops a row whose status changed while it waited
  if (lock)
    await db.execute(
      sql`SELECT id FROM tickets WHERE id = ${ticketId} AND installation_id = ${installationId} FOR UPDATE`,
    );
  const { rows } = await db.execute(ticketFactsStatement(installationId, sql`t.id = ${ticketId}`));
  return rows[0] ? factsOf(rows[0]) : undefined;
}

/**
 * How a write that read a ticket's facts checks, in its batch, that they are still so
 * (`factsPrint`): by all but the times (they move with the history the drain writes after a
 * change, which would refuse such writes for nothing), or, for a trigger with a time condition,
 * by the times too.
 */
export type FactsPrint = 'timeless' | 'timed';

/**
 * The facts of the installation's live tickets `where` selects (over `t`), in id order, each with
 * (`printed`) their digests, `timeless` and `timed` (`FactsPrint`).
 */
export function ticketFactsStatement(installationId: number, where: SQL, printed = false): SQL {
  const digests = sql`, md5((to_jsonb(f) - 'updated_at' - 'status_since' - 'last_customer_at')::text) AS timeless, md5(to_jsonb(f)::text) AS timed`;
  return sql`SELECT f.*${printed ? digests : sql``} FROM (
    SELECT t.id, t.inbox_id, t.status_id, s.code AS status_code, t.priority_id, t.type_id, t.source_id, coalesce(src.name, '') AS source_name, t.agent_id,
      t.customer_id, coalesce(c.email, '') AS email, coalesce(c.first_name, '') AS first_name, coalesce(c.last_name, '') AS last_name, t.subject, t.created_at, t.updated_at,
      coalesce((SELECT json_agg(tt.tag_id ORDER BY tt.tag_id) FROM ticket_tags tt WHERE tt.ticket_id = t.id), '[]') AS tags,
      coalesce((SELECT json_agg(cc.company_id ORDER BY cc.company_id) FROM company_customers cc WHERE cc.customer_id = t.customer_id), '[]') AS companies,
      coalesce((SELECT m.text_body FROM ticket_messages m WHERE m.ticket_id = t.id AND m.state = 'active' AND NOT m.is_draft ORDER BY m.id DESC LIMIT 1), '') AS body,
      (SELECT max(m.created_at) FROM ticket_messages m WHERE m.ticket_id = t.id AND m.state = 'active' AND m.customer_id IS NOT NULL AND NOT m.is_draft) AS last_customer_at,
      coalesce((SELECT max(a.created_at) FROM ticket_activities a WHERE a.ticket_id = t.id AND a.event_type = 'ticket.status'), t.created_at) AS status_since,
      coalesce((SELECT json_object_agg(v.custom_field_id, v.value) FROM ticket_custom_field_values v WHERE v.ticket_id = t.id), '{}') AS fields
      FROM tickets t JOIN ticket_statuses s ON s.id = t.status_id LEFT JOIN ticket_sources src ON src.id = t.source_id JOIN customers c ON c.id = t.customer_id
     WHERE t.installation_id = ${installationId} AND t.state = 'active' AND ${where}) f ORDER BY f.id`;
}

/** A digest of a ticket's facts now (`ticketFactsStatement`'s), null when it is not a live ticket of the installation. */
export const factsPrint = (installationId: number, ticketId: number, printed: FactsPrint): SQL =>
  sql`(SELECT p.${sql.raw(printed)} FROM (${ticketFactsStatement(installationId, sql`t.id = ${ticketId}`, true)}) p)`;

/** A row of `ticketFactsStatement` as facts. */
export function factsOf(row: Record<string, unknown>): TicketFacts {
  const id = (value: unknown) => (value === null ? null : Number(value));
  return {
    id: Number(row.id),
    inboxId: Number(row.inbox_id),
    statusId: Number(row.status_id),
    statusCode: String(row.status_code),
    priorityId: id(row.priority_id),
    typeId: id(row.type_id),
    sourceId: id(row.source_id),
    sourceName: String(row.source_name),
    agentId: id(row.agent_id),
    customerId: Number(row.customer_id),
    customerEmail: String(row.email),
    customerFirstName: String(row.first_name),
    customerLastName: String(row.last_name),
    subject: String(row.subject),
    body: String(row.body),
    tags: (row.tags as number[]).map(Number),
    companies: (row.companies as number[]).map(Number),
    fields: row.fields as Record<string, unknown>,
    createdAt: new Date(String(row.created_at)),
    updatedAt: new Date(String(row.updated_at)),
    lastCustomerAt: row.last_customer_at === null ? null : new Date(String(row.last_customer_at)),
    statusSince: new Date(String(row.status_since)),
  };
}

type Condition = StoredTrigger['conditions'][number];

const ids = (facts: TicketFacts, field: number): number[] => {
  const one = (value: number | null) => (value === null ? [] : [value]);
  switch (field) {
    case FIELD.status:
      return [facts.statusId];
    case FIELD.priority:
      return one(facts.priorityId);
    case FIELD.ticketType:
      return one(facts.typeId);
    case FIELD.source:
      return one(facts.sourceId);
    case FIELD.inbox:
      return [facts.inboxId];
    case FIELD.agent:
      return one(facts.agentId);
    case FIELD.customer:
      return [facts.customerId];
    case FIELD.tag:
      return facts.tags;
    case FIELD.company:
      return facts.companies;
    default:
      return [];
  }
};

function text(facts: TicketFacts, condition: Condition): { value: string; compared: string; options?: string[] } {
  switch (condition.field) {
    case FIELD.customerEmail:
      return { value: facts.customerEmail, compared: condition.value };
    case FIELD.subject:
      return { value: facts.subject, compared: condition.value };
    case FIELD.body:
      return { value: facts.body, compared: condition.value };
    case FIELD.channel:
      return { value: facts.sourceName, compared: condition.value };
    default: {
      const named = JSON.parse(condition.value) as { id: number; value?: string };
      const held = facts.fields[String(named.id)];
      const compared = String(named.value ?? '');
      // checkboxes and dropdowns hold option ids: "contains" is one of them, whole
      if (Array.isArray(held)) return { value: held.join(','), compared, options: held.map(String) };
      if (typeof held === 'number') return { value: String(held), compared, options: [String(held)] };
      return { value: held === undefined || held === null ? '' : String(held), compared };
    }
  }
}

function hoursOf(facts: TicketFacts, field: number, now: Date, hours: WorkingHours | undefined): number | undefined {
  const since =
    field === FIELD.hoursSinceCreated
      ? facts.createdAt
      : field === FIELD.hoursSinceUpdated
        ? facts.updatedAt
        : field === FIELD.hoursSinceCustomerMessage
          ? facts.lastCustomerAt
          : facts.statusSince;
  return since === null ? undefined : clockMinutesBetween(hours, since, now) / 60;
}

/** The fields whose value is text, compared without regard to case. */
const TEXT_FIELDS: readonly number[] = [
  FIELD.customerEmail,
  FIELD.subject,
  FIELD.body,
  FIELD.customField,
  FIELD.channel,
];

/** Whether one condition holds for the ticket at `now` (time conditions count in `hours`, else calendar time). */
export function conditionHolds(condition: Condition, facts: TicketFacts, now: Date, hours?: WorkingHours): boolean {
  const { field, operator } = condition;
  if (TIME_FIELDS.includes(field)) {
    const elapsed = hoursOf(facts, field, now, hours);
    if (elapsed === undefined) return false;
    return operator === OPERATOR.greaterThan ? elapsed > Number(condition.value) : elapsed < Number(condition.value);
  }
  if (TEXT_FIELDS.includes(field)) {
    const { value, compared, options } = text(facts, condition);
    const [a, b] = [value.toLowerCase(), compared.toLowerCase()];
    const contains = options ? options.includes(b) : a.includes(b);
    switch (operator) {
      case OPERATOR.contains:
        return contains;
      case OPERATOR.doesNotContain:
        return !contains;
      case OPERATOR.equals:
        return a === b;
      case OPERATOR.notEqual:
        return a !== b;
      case OPERATOR.isEmpty:
        return a === '';
      default:
        return a !== '';
    }
  }
  const values = ids(facts, field);
  const named = Number(condition.value);
  switch (operator) {
    case OPERATOR.equals:
    case OPERATOR.tagContains:
      return values.includes(named);
    case OPERATOR.notEqual:
    case OPERATOR.tagDoesNotContain:
      return !values.includes(named);
    case OPERATOR.isEmpty:
      return values.length === 0;
    default:
      return values.length > 0;
  }
}

/** Whether the trigger applies to the ticket: its inboxes (none: all), every ALL condition, and one ANY condition if it has any. */
export function triggerMatches(trigger: StoredTrigger, facts: TicketFacts, now: Date, hours?: WorkingHours): boolean {
  if (trigger.inboxes.length > 0 && !trigger.inboxes.includes(facts.inboxId)) return false;
  const all = trigger.conditions.filter((c) => c.matchRequirement === 'ALL');
  const any = trigger.conditions.filter((c) => c.matchRequirement === 'ANY');
  return (
    all.every((c) => conditionHolds(c, facts, now, hours)) &&
    (any.length === 0 || any.some((c) => conditionHolds(c, facts, now, hours)))
  );
}
