import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { emailAddress } from '../../lib/field-schemas';
import type { WriteContext } from '../../engine';
import { insertEventsFrom } from '../../events/record-events';
import { messageHtml, messageText, type EditMethod } from '../../lib/html/message-body';
import { attachFiles, attachFilesStatements } from '../files/attach';
import { recalled, remember } from '../../db/refusal';
import { meterThreadEntries } from '../ai/usage-events';
import { appendedToSearch, refreshSearch, refreshSearchStatement, searchEffectOf } from './ticket-search';

/** A ticket's or an entry's `cc` or `bcc`: email addresses, at most 50. */
export const addressList = z.array(emailAddress).max(50);

/** A list of strings as a Postgres `text[]` (drizzle would spread a JS array into a list of parameters). */
const textArray = (items: string[] = []) =>
  sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(items)}::jsonb))`;

/**
 * Whether an entry reaching the thread moves its ticket to waiting on the customer (3): a
 * teammate's reply (not a note, not a draft) to an `active` ticket that names no status.
 */
export function movesToWaiting(ticketStatusCode: string, entry: { threadType: string; isDraft?: boolean }): boolean {
  return entry.threadType === 'message' && !entry.isDraft && ticketStatusCode === 'active';
}

/** The status a reply moves its ticket to (`movesToWaiting`). */
export const WAITING_STATUS = 3;

/**
 * Whether the customer's reply makes its ticket active again: one waiting on them, or solved
 * (the customer says it is not). A closed ticket stays closed (what mail to it does is the mail
 * channel's rule), and one on hold or spam is the team's to move.
 */
export function reopensOnCustomerReply(ticketStatusCode: string): boolean {
  return ticketStatusCode === 'waiting' || ticketStatusCode === 'solved';
}

/** The status a customer's reply moves its ticket to (`reopensOnCustomerReply`). */
export const ACTIVE_STATUS = 1;

/** How much of an entry's text a ticket's `previewText` holds. */
const PREVIEW_CHARS = 200;

/**
 * Adds a thread entry to a ticket, its body sanitized (Markdown rendered first), with its
 * `created` event naming the ticket; an entry that is neither a note nor a draft becomes the
 * ticket's preview and last message. Any entry counts as a change of the ticket (`updatedAt`,
 * the change feed). Written by the customer when `customerId` is given (the
 * teammate in `createdBy` wrote it on their behalf), else by the teammate.
 */
export async function addThreadEntry(
  context: WriteContext,
  entry: ThreadEntry & { ticketId: number },
): Promise<number> {
  const { tx } = context;
  const { rows } = await tx.execute(threadEntryStatement(context.who, entry));
  const id = Number(rows[0]!.id);
  if (entry.files) await attachFiles(context, id, entry.files.ids, entry.files.source);
  if (rows[0]!.search === 'rewrite') await refreshSearch({ tx }, [entry.ticketId]);
  return id;
}

/** What `addThreadEntry` writes. */
export interface ThreadEntry {
  /** SQL in a batch that made the ticket (its id recalled) */
  ticketId: number | SQL;
  body: string;
  editMethod: EditMethod;
  threadType: 'message' | 'note';
  customerId: number | SQL | null;
  cc?: string[];
  bcc?: string[];
  isPinned?: boolean;
  isDraft?: boolean;
  /** the ticket's first message, written with it: its history says `ticket.created`, not a reply */
  opening?: boolean;
  /** when it was written and by which teammate, if not now and not the caller (a chat transcript's messages keep theirs) */
  at?: string;
  by?: number | null;
  /** the caller rewrites the ticket's search document once after writing several entries (a chat transcript) */
  searchLater?: boolean;
  /** confirmed files to attach, and the body's name for them (for a 400) */
  files?: { ids: readonly number[]; source: string };
  /** the AI draft a teammate's reply was sent from, checked to be the ticket's: the entry is billed as one `replies` unit */
  aiDraftId?: number;
}

/**
 * `addThreadEntry` as statements of a batch: the entry (its id handed on as `idName`, see
 * `remember`), the ticket's search document rewritten where the entry asks for it, its files.
 */
export function threadEntryStatements(who: WriteContext['who'], entry: ThreadEntry, idName: string): SQL[] {
  const effect = `desk.${idName}_search`;
  return [
    threadEntryStatement(
      who,
      entry,
      sql`${remember(idName, sql`id`)}, set_config(${effect}::text, (SELECT effect FROM searched), true)`,
    ),
    refreshSearchStatement(sql`t.id = ${entry.ticketId} AND current_setting(${effect}::text) = 'rewrite'`),
    ...(entry.files ? attachFilesStatements(who, recalled(idName), entry.files.ids, entry.files.source) : []),
  ];
}

/**
 * A new ticket's first message as its create body has it (`message`, `editMethod`, `cc`, `bcc`,
 * `files`), written by its customer; undefined when the body has none.
 */
export function openingEntry<Id extends number | SQL>(
  record: Record<string, unknown>,
  ticketId: Id,
  customerId: number | SQL,
): (ThreadEntry & { ticketId: Id }) | undefined {
  if (typeof record.message !== 'string' || record.message.trim() === '') return undefined;
  return {
    ticketId,
    body: record.message,
    editMethod: (record.editMethod as EditMethod | undefined) ?? 'html',
    threadType: 'message',
    customerId,
    cc: record.cc as string[] | undefined,
    bcc: record.bcc as string[] | undefined,
    opening: true,
    files: record.files ? { ids: record.files as number[], source: 'ticket.files' } : undefined,
  };
}

/**
 * The entry, the ticket's preview and search columns and the entry's event, in one statement
 * (its files and a search rewrite are the caller's). Answers `select` over the new entry
 * (`entry`) and the search effect (`searched.effect`: `rewrite` asks for the whole document again);
 * by default its id and that effect (`search`).
 */
export function threadEntryStatement(
  who: WriteContext['who'],
  entry: ThreadEntry,
  select: SQL = sql`id, (SELECT effect FROM searched) AS search`,
): SQL {
  const html = messageHtml(entry.body, entry.editMethod);
  const text = messageText(html);
  return sql`
    WITH entry AS (
      INSERT INTO ticket_messages (installation_id, ticket_id, thread_type, html_body, text_body, edit_method, customer_id, cc, bcc, is_pinned, is_draft, created_by, updated_by, created_at, ai_draft_id)
      VALUES (${who.installationId}, ${entry.ticketId}, ${entry.threadType}, ${html}, ${text}, ${entry.editMethod}, ${entry.customerId},
              ${textArray(entry.cc)}, ${textArray(entry.bcc)}, ${entry.isPinned ?? false}, ${entry.isDraft ?? false}, ${entry.by === undefined ? who.userId : entry.by}::int, ${who.userId}::int,
              coalesce(${entry.at ?? null}::timestamptz, now()), ${entry.aiDraftId ?? null}::int)
      RETURNING id, installation_id, ticket_id, thread_type, is_draft, created_at, text_body, ai_draft_id),
    ${entry.aiDraftId === undefined ? sql`` : sql`metered AS (${meterThreadEntries(sql`entry`)}),`}
    searched AS (
      SELECT ${entry.isDraft || entry.searchLater ? sql`'none'` : searchEffectOf(sql`entry.text_body`)} AS effect
        FROM tickets t JOIN entry ON t.id = entry.ticket_id),
    preview AS (
      UPDATE tickets t SET updated_at = now(),
        preview_text = CASE WHEN entry.thread_type <> 'note' AND NOT entry.is_draft THEN left(entry.text_body, ${PREVIEW_CHARS}) ELSE t.preview_text END,
        last_message_at = CASE WHEN entry.thread_type <> 'note' AND NOT entry.is_draft THEN entry.created_at ELSE t.last_message_at END,
        ${appendedToSearch(sql`entry.text_body`, sql`searched.effect`)}
        FROM entry, searched WHERE t.id = entry.ticket_id),
    logged AS (${insertEventsFrom(
      sql`entry`,
      who,
      'messages',
      'created',
      sql`jsonb_build_object('parent', jsonb_build_object('id', r.ticket_id, 'type', 'tickets'), 'threadType', r.thread_type,
      'author', ${entry.customerId === null ? 'teammate' : 'customer'}::text, 'isDraft', r.is_draft, 'opening', ${entry.opening ?? false}::boolean)
      ${entry.aiDraftId === undefined ? sql`` : sql`|| jsonb_build_object('aiDraft', jsonb_build_object('id', r.ai_draft_id, 'type', 'aidrafts'))`}`,
    )})
    SELECT ${select} FROM entry`;
}

/**
 * The preview and last message time of tickets whose thread changed other than by a new entry
 * (entries moved by a merge or split, an entry edited, sent or deleted): from the latest live
 * entry that is neither a note nor a draft; and their search documents.
 */
export async function refreshPreviews({ tx }: Pick<WriteContext, 'tx'>, ticketIds: readonly number[]): Promise<void> {
  for (const statement of refreshPreviewsStatements(ticketIds)) await tx.execute(statement);
}

/** `refreshPreviews` as statements of a batch: of these tickets, or of those an SQL set names. */
export function refreshPreviewsStatements(ticketIds: readonly number[] | SQL): SQL[] {
  if (Array.isArray(ticketIds) && ticketIds.length === 0) return [];
  const ids = Array.isArray(ticketIds)
    ? sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)::int)`
    : (ticketIds as SQL);
  return [
    sql`
    UPDATE tickets t SET updated_at = now(), preview_text = coalesce(left(latest.text_body, ${PREVIEW_CHARS}), ''), last_message_at = latest.created_at
      FROM tickets s LEFT JOIN LATERAL (
        SELECT m.text_body, m.created_at FROM ticket_messages m
         WHERE m.ticket_id = s.id AND m.state = 'active' AND m.thread_type <> 'note' AND NOT m.is_draft
         ORDER BY m.created_at DESC, m.id DESC LIMIT 1) latest ON true
     WHERE t.id = s.id AND s.id IN ${ids}`,
    refreshSearchStatement(sql`t.id IN ${ids}`),
  ];
}
