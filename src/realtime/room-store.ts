import { isRoomMessageId, type MessageChange, type RoomMessage } from './room-protocol';

/** What the room knows of its conversation, set by the Worker at every join. */
export interface RoomConversation {
  token: string;
  conversationId: number;
  installationId: number;
  status: 'open' | 'closed';
  /** the form's AI assistant, when it has one: a visitor's message unanswered by a teammate for `waitSeconds` is answered by it (`room-assistant.ts`) */
  assistant?: { waitSeconds: number } | null;
}

interface MessageRow extends Record<string, SqlStorageValue> {
  seq: number;
  client_id: string | null;
  author: string;
  author_id: number;
  message: string;
  ai_draft: string | null;
  sent_at: string;
  deleted: number;
  changed_event: number;
}

const toMessage = (row: MessageRow): RoomMessage => ({
  id: String(row.seq),
  clientId: row.client_id,
  author: { type: row.author as RoomMessage['author']['type'], id: row.author_id },
  message: row.message,
  aiDraft: row.ai_draft,
  sentAt: row.sent_at,
});

/**
 * The room's own durable storage (the Durable Object's SQLite): every accepted message, whether
 * it has reached Postgres yet, and the conversation the room serves.
 */
/**
 * Rooms created before client ids were scoped to their sender had `client_id` unique across the
 * room; their table is rebuilt once with the sender spelled out (`role:id` of the author, an AI
 * answer being its agent's).
 */
function migrateSenderScopedClientIds(sql: SqlStorage): void {
  const table = sql
    .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages'")
    .toArray()[0];
  if (!table || table.sql.includes('sender')) return;
  sql.exec('ALTER TABLE messages RENAME TO messages_before_sender');
  sql.exec('DROP INDEX IF EXISTS messages_undelivered');
  sql.exec(`CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, sender TEXT NOT NULL, client_id TEXT, author TEXT NOT NULL, author_id INTEGER NOT NULL,
    message TEXT NOT NULL, ai_draft TEXT, sent_at TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0, UNIQUE (sender, client_id))`);
  sql.exec(`INSERT INTO messages (seq, sender, client_id, author, author_id, message, ai_draft, sent_at, delivered)
    SELECT seq, (CASE author WHEN 'ai' THEN 'agent' ELSE author END) || ':' || author_id, client_id, author, author_id, message, ai_draft, sent_at, delivered
    FROM messages_before_sender`);
  sql.exec('DROP TABLE messages_before_sender');
}

/**
 * Rooms created before messages could be changed through the API have neither the mark of a
 * deleted message nor the last change applied to each; both are added once, as none was changed.
 */
function migrateChangeColumns(sql: SqlStorage): void {
  const table = sql
    .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'messages'")
    .toArray()[0];
  if (!table || table.sql.includes('changed_event')) return;
  sql.exec('ALTER TABLE messages ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0');
  sql.exec('ALTER TABLE messages ADD COLUMN changed_event INTEGER NOT NULL DEFAULT 0');
}

/** A message of the room as it stands, with whether it was deleted through the API. */
export interface StoredRoomMessage {
  message: RoomMessage;
  deleted: boolean;
}

export class RoomStore {
  private knownConversation: RoomConversation | null | undefined;

  constructor(private readonly sql: SqlStorage) {
    migrateSenderScopedClientIds(sql);
    migrateChangeColumns(sql);
    sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      sender TEXT NOT NULL,
      client_id TEXT,
      author TEXT NOT NULL,
      author_id INTEGER NOT NULL,
      message TEXT NOT NULL,
      ai_draft TEXT,
      sent_at TEXT NOT NULL,
      delivered INTEGER NOT NULL DEFAULT 0,
      deleted INTEGER NOT NULL DEFAULT 0,
      changed_event INTEGER NOT NULL DEFAULT 0,
      UNIQUE (sender, client_id))`);
    sql.exec('CREATE INDEX IF NOT EXISTS messages_undelivered ON messages (delivered, seq)');
    sql.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  }

  /** Read once per instance: only this room writes its storage, and every message asks for it. */
  conversation(): RoomConversation | undefined {
    if (this.knownConversation === undefined) {
      const value = this.value('conversation');
      this.knownConversation = value ? (JSON.parse(value) as RoomConversation) : null;
    }
    return this.knownConversation ?? undefined;
  }

  setConversation(conversation: RoomConversation): void {
    this.setValue('conversation', JSON.stringify(conversation));
    this.knownConversation = conversation;
  }

  /**
   * The message this sender already sent under this client id, if any: a resend is answered, not
   * stored again, even once deleted. Client ids are the sender's own: another participant may use the same one.
   */
  byClientId(sender: string, clientId: string): StoredRoomMessage | undefined {
    const row = this.sql
      .exec<MessageRow>('SELECT * FROM messages WHERE sender = ? AND client_id = ?', sender, clientId)
      .toArray()[0];
    return row ? { message: toMessage(row), deleted: row.deleted === 1 } : undefined;
  }

  add(sender: string, message: Omit<RoomMessage, 'id'>): RoomMessage {
    const row = this.sql
      .exec<MessageRow>(
        'INSERT INTO messages (sender, client_id, author, author_id, message, ai_draft, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
        sender,
        message.clientId,
        message.author.type,
        message.author.id,
        message.message,
        message.aiDraft,
        message.sentAt,
      )
      .one();
    return toMessage(row);
  }

  /** The last messages not deleted, oldest first. */
  recent(limit: number): RoomMessage[] {
    return this.sql
      .exec<MessageRow>(
        'SELECT * FROM (SELECT * FROM messages WHERE deleted = 0 ORDER BY seq DESC LIMIT ?) ORDER BY seq',
        limit,
      )
      .toArray()
      .map(toMessage);
  }

  /**
   * Applies a change made through the API to the message the room knows by this id: its text now,
   * or `null` once deleted (the text and draft are dropped; the row stays, so a resend of its client
   * id is still known). The message is in Postgres, so it is marked delivered: a deleted one is
   * never delivered again. A change whose event is not newer than the last applied to the message
   * changes nothing. Answers the message as it now stands when what participants see changed.
   */
  applyChange(change: MessageChange): StoredRoomMessage | undefined {
    if (!isRoomMessageId(change.roomId)) return undefined;
    const seq = Number(change.roomId);
    const before = this.sql.exec<MessageRow>('SELECT * FROM messages WHERE seq = ?', seq).toArray()[0];
    if (!before || before.changed_event >= change.eventId) return undefined;
    const deleted = change.message === null;
    const after = this.sql
      .exec<MessageRow>(
        `UPDATE messages SET message = ?, ai_draft = CASE WHEN ? = 1 THEN NULL ELSE ai_draft END, deleted = ?, delivered = 1, changed_event = ?
         WHERE seq = ? RETURNING *`,
        change.message ?? '',
        Number(deleted),
        Number(deleted),
        change.eventId,
        seq,
      )
      .one();
    if (after.deleted === before.deleted && after.message === before.message) return undefined;
    return { message: toMessage(after), deleted };
  }

  /** How many messages of `author` this sender wrote in the room. */
  sentBy(sender: string, author: RoomMessage['author']['type']): number {
    return this.sql
      .exec<{ n: number }>('SELECT count(*) AS n FROM messages WHERE sender = ? AND author = ?', sender, author)
      .one().n;
  }

  undelivered(limit: number): RoomMessage[] {
    return this.sql
      .exec<MessageRow>('SELECT * FROM messages WHERE delivered = 0 ORDER BY seq LIMIT ?', limit)
      .toArray()
      .map(toMessage);
  }

  markDelivered(ids: string[]): void {
    if (ids.length)
      this.sql.exec(
        `UPDATE messages SET delivered = 1 WHERE seq IN (${ids.map(() => '?').join(', ')})`,
        ...ids.map(Number),
      );
  }

  /** A value the room keeps beside its messages (its `meta` table); undefined when none was set. */
  value(key: string): string | undefined {
    return this.sql.exec<{ value: string }>('SELECT value FROM meta WHERE key = ?', key).toArray()[0]?.value;
  }

  /** Sets a kept value, or forgets it (`null`). */
  setValue(key: string, value: string | null): void {
    if (value === null) this.sql.exec('DELETE FROM meta WHERE key = ?', key);
    else
      this.sql.exec(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        key,
        value,
      );
  }

  /** The last event of the conversation the room applied (a status change): an event told again is not applied twice. */
  appliedEvent(): number {
    return Number(this.value('applied_event') ?? 0);
  }

  setAppliedEvent(eventId: number): void {
    this.setValue('applied_event', String(eventId));
  }

  deliveryAttempts(): number {
    return Number(this.value('attempts') ?? 0);
  }

  setDeliveryAttempts(attempts: number): void {
    this.setValue('attempts', String(attempts));
  }
}
