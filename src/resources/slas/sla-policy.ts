import { sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client';
import type { WorkingHours } from '../../lib/working-time';
import { workingHoursOf } from '../businesshours/working-hours-of';
import type { AppliedPolicy, TargetName } from './sla-clock';

/** The scopes a policy limits its tickets by, as the ticket's values are read for them. */
export const SCOPE_KINDS = ['customers', 'companies', 'inboxes', 'tickettypes', 'tags'] as const;
type ScopeKind = (typeof SCOPE_KINDS)[number];

/** What a ticket is, as the scopes compare it: each kind's values (one, or several for companies and tags). */
export type ScopeValues = Record<ScopeKind, number[]>;

interface Scope {
  eq: number[];
  ne: number[];
}

export interface Policy {
  id: number;
  businesshoursId: number | null;
  scopes: Record<ScopeKind, Scope>;
  /** targets by priority id (0: tickets without a priority) */
  targets: Map<number, Partial<Record<TargetName, number>>>;
  warnings: Partial<Record<TargetName, number>>;
}

/** A notification's target name, as the platform calls the next reply. */
const TARGET_OF: Record<string, TargetName> = {
  firstResponse: 'firstResponse',
  replyTime: 'nextReply',
  resolutionTime: 'resolution',
};

/** The installation's enabled live policies, in the order they are tried: display order, then id. */
export async function enabledPolicies(db: Queryable, installationId: number): Promise<Policy[]> {
  const scopeRows = (table: string, column: string, kind: ScopeKind) =>
    sql`SELECT ${kind}::text AS kind, ${sql.identifier(column)} AS record, condition_option AS option FROM ${sql.identifier(table)} WHERE sla_id = s.id AND state = 'active'`;
  const { rows } = await db.execute(sql`
    SELECT s.id, s.businesshours_id,
      coalesce((SELECT json_agg(json_build_array(x.kind, x.record, x.option)) FROM (
        ${scopeRows('sla_customers', 'customer_id', 'customers')} UNION ALL ${scopeRows('sla_companies', 'company_id', 'companies')}
        UNION ALL ${scopeRows('sla_inboxes', 'inbox_id', 'inboxes')} UNION ALL ${scopeRows('sla_ticket_types', 'ticket_type_id', 'tickettypes')}
        UNION ALL ${scopeRows('sla_tags', 'tag_id', 'tags')}) x), '[]') AS scopes,
      coalesce((SELECT json_agg(json_build_array(coalesce(p.priority_id, 0), p.hours * 60 + p.minutes, p.reply_time_minutes, p.resolution_time_minutes))
        FROM sla_ticket_priorities p WHERE p.sla_id = s.id AND p.state = 'active'), '[]') AS targets,
      coalesce((SELECT json_agg(json_build_array(n.type, n.duration)) FROM sla_notifications n
        WHERE n.sla_id = s.id AND n.state = 'active' AND n.condition = 'warning'), '[]') AS warnings
      FROM slas s WHERE s.installation_id = ${installationId} AND s.state = 'active' AND s.enabled
     ORDER BY s.display_order, s.id`);
  return rows.map((row) => {
    const scopes = Object.fromEntries(
      SCOPE_KINDS.map((kind): [ScopeKind, Scope] => [kind, { eq: [], ne: [] }]),
    ) as Record<ScopeKind, Scope>;
    for (const [kind, record, option] of row.scopes as [ScopeKind, number, 'eq' | 'ne'][])
      scopes[kind][option].push(record);
    const targets = new Map<number, Partial<Record<TargetName, number>>>();
    for (const [priority, firstResponse, nextReply, resolution] of row.targets as [
      number,
      number,
      number | null,
      number | null,
    ][]) {
      targets.set(priority, {
        ...(firstResponse > 0 ? { firstResponse } : {}),
        ...(nextReply !== null ? { nextReply } : {}),
        ...(resolution !== null ? { resolution } : {}),
      });
    }
    const warnings: Partial<Record<TargetName, number>> = {};
    for (const [type, duration] of row.warnings as [string, number][]) {
      const name = TARGET_OF[type]!;
      warnings[name] = Math.max(warnings[name] ?? 0, duration);
    }
    return {
      id: Number(row.id),
      businesshoursId: row.businesshours_id === null ? null : Number(row.businesshours_id),
      scopes,
      targets,
      warnings,
    };
  });
}

/** A scope holds when some value is among its `eq` records (if it has any) and none is among its `ne` records. */
function holds(scope: Scope, values: number[]): boolean {
  if (scope.eq.length > 0 && !values.some((value) => scope.eq.includes(value))) return false;
  return !values.some((value) => scope.ne.includes(value));
}

/** The first policy whose every scope holds for the ticket. */
export function matchingPolicy(policies: readonly Policy[], ticket: ScopeValues): Policy | undefined {
  return policies.find((policy) => SCOPE_KINDS.every((kind) => holds(policy.scopes[kind], ticket[kind])));
}

/** The policy as the clocks apply it to a ticket of this priority: its clock and that priority's targets. */
export async function appliedPolicy(
  db: Queryable,
  installationId: number,
  policy: Policy,
  priorityId: number | null,
  hoursCache: Map<number, WorkingHours | undefined>,
): Promise<AppliedPolicy> {
  let hours: WorkingHours | undefined;
  if (policy.businesshoursId !== null) {
    if (!hoursCache.has(policy.businesshoursId))
      hoursCache.set(policy.businesshoursId, await workingHoursOf(db, installationId, policy.businesshoursId));
    hours = hoursCache.get(policy.businesshoursId);
  }
  return { id: policy.id, hours, targets: policy.targets.get(priorityId ?? 0) ?? {}, warnings: policy.warnings };
}
