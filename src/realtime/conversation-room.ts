import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../app-env';
import {
  DELIVERY_BATCH,
  DELIVERY_GATHER_MS,
  deliveryPayload,
  deliveryRequest,
  isPermanentRefusal,
  retryDelayMs,
} from './room-delivery';
import { HISTORY_ON_JOIN, MAX_FRAME_BYTES } from './room-limits';
import {
  CLIENT_FRAME_TYPES,
  PING_FRAME,
  PONG_FRAME,
  ROOM_HEADERS,
  clientFrame,
  deletedFrame,
  errorFrame,
  messageFrame,
  type ClientFrame,
  type MessageChange,
  type Participant,
} from './room-protocol';
import { RoomAssistant } from './room-assistant';
import { RoomStore, type RoomConversation } from './room-store';

/** A participant's messages a room takes a minute unless `ROOM_MESSAGES_PER_MINUTE` says otherwise. */
export const ROOM_MESSAGES_PER_MINUTE = 120;

/**
 * One realtime room per conversation, addressed by its token. Sockets use the Hibernation API:
 * an idle room is evicted from memory and woken by the next frame, with each socket's
 * participant kept in its attachment. A message is stored in the room's SQLite before anyone
 * sees it, then delivered in signed batches to the webhooks endpoint until acknowledged.
 */
export class ConversationRoom extends DurableObject<Env> {
  private readonly store: RoomStore;
  private readonly assistant: RoomAssistant;
  /** A delivery alarm is set for what this instance accepted; saves a storage call per message (lost with hibernation, harmlessly). */
  private deliveryScheduled = false;
  /** Each sender's messages this minute (`withinLimit`). */
  private readonly sent = new Map<string, { minute: number; messages: number }>();
  /** The alarm's settings, in order (`wakeAt`). */
  private waking: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RoomStore(ctx.storage.sql);
    this.assistant = new RoomAssistant(this.store, env, (frame) => this.broadcast(frame));
    // A heartbeat is answered without waking a hibernating room.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING_FRAME, PONG_FRAME));
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/status' && request.method === 'POST') return this.changeStatus(request);
    if (url.pathname === '/message' && request.method === 'POST') return this.changeMessage(request);
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('expected a WebSocket upgrade', { status: 426 });
    const conversation = JSON.parse(
      request.headers.get(ROOM_HEADERS.conversation) ?? 'null',
    ) as RoomConversation | null;
    const participant = JSON.parse(request.headers.get(ROOM_HEADERS.participant) ?? 'null') as Participant | null;
    if (!conversation || !participant) return new Response('joins come through the Worker', { status: 400 });
    this.store.setConversation(conversation);

    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment(participant);
    server.send(
      JSON.stringify({
        type: 'welcome',
        conversation: { id: conversation.conversationId, token: conversation.token, status: conversation.status },
        you: participant,
        present: this.participants(),
        history: this.store.recent(HISTORY_ON_JOIN).map((message) => JSON.parse(messageFrame(message))),
      }),
    );
    this.broadcast(JSON.stringify({ type: 'presence', event: 'joined', who: participant }), server);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    if (typeof data !== 'string') return ws.send(errorFrame('not_text', 'frames are JSON text'));
    if (new TextEncoder().encode(data).byteLength > MAX_FRAME_BYTES) {
      return ws.send(errorFrame('too_large', `a frame may hold at most ${MAX_FRAME_BYTES} bytes`));
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return ws.send(errorFrame('invalid_json', 'the frame is not valid JSON'));
    }
    const type = (raw as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !CLIENT_FRAME_TYPES.includes(type)) {
      return ws.send(errorFrame('unknown_type', `type must be one of: ${CLIENT_FRAME_TYPES.join(', ')}`));
    }
    const parsed = clientFrame.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.');
      return ws.send(
        errorFrame('invalid', `${field}: ${issue.code === 'unrecognized_keys' ? 'unknown property' : issue.message}`, {
          field,
        }),
      );
    }
    const participant = ws.deserializeAttachment() as Participant;
    const frame = parsed.data;
    if (frame.type === 'ping') return ws.send(PONG_FRAME);
    if (frame.type === 'typing')
      return this.broadcast(JSON.stringify({ type: 'typing', who: participant, typing: frame.typing }), ws);
    this.acceptMessage(ws, participant, frame);
  }

  /**
   * Whether the sender may send one more message this minute (`ROOM_MESSAGES_PER_MINUTE`, 120):
   * a participant flooding the room is refused, the others go on. Counted in memory: a room woken
   * from hibernation starts the minute afresh.
   */
  private withinLimit(sender: string): { ok: true } | { ok: false; limit: number; wait: number } {
    const limit = Number(this.env.ROOM_MESSAGES_PER_MINUTE) || ROOM_MESSAGES_PER_MINUTE;
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    let count = this.sent.get(sender);
    if (!count || count.minute !== minute) {
      count = { minute, messages: 0 };
      this.sent.set(sender, count);
    }
    if (count.messages >= limit)
      return { ok: false, limit, wait: Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000)) };
    count.messages += 1;
    return { ok: true };
  }

  private acceptMessage(
    ws: WebSocket,
    participant: Participant,
    frame: Extract<ClientFrame, { type: 'message' }>,
  ): void {
    const refuse = (code: 'forbidden' | 'conversation_closed', detail: string) =>
      ws.send(errorFrame(code, detail, { clientId: frame.clientId }));
    if (participant.role !== 'agent' && (frame.aiDraft !== undefined || frame.as !== undefined)) {
      return refuse('forbidden', 'only agents send aiDraft or as');
    }
    if (this.store.conversation()?.status === 'closed')
      return refuse('conversation_closed', 'the conversation is closed');
    const sender = `${participant.role}:${participant.id}`;
    const earlier = frame.clientId === undefined ? undefined : this.store.byClientId(sender, frame.clientId);
    if (earlier)
      return ws.send(
        earlier.deleted ? deletedFrame(earlier.message.id, earlier.message.clientId) : messageFrame(earlier.message),
      );
    const allowed = this.withinLimit(sender);
    if (!allowed.ok) {
      return ws.send(
        errorFrame('rate_limited', `more than ${allowed.limit} messages a minute; send again in ${allowed.wait} s`, {
          clientId: frame.clientId,
          retryAfter: allowed.wait,
        }),
      );
    }
    const message = this.store.add(sender, {
      clientId: frame.clientId ?? null,
      author: { type: frame.as === 'ai' ? 'ai' : participant.role, id: participant.id },
      message: frame.message,
      aiDraft: frame.as === 'ai' ? null : (frame.aiDraft ?? null),
      sentAt: new Date().toISOString(),
    });
    this.broadcast(messageFrame(message));
    let wake = this.assistant.noticed(message) ?? Infinity;
    if (!this.deliveryScheduled) {
      this.deliveryScheduled = true;
      wake = Math.min(wake, Math.max(Date.now() + DELIVERY_GATHER_MS, this.retryAt()));
    }
    if (wake !== Infinity) this.ctx.waitUntil(this.wakeAt(wake));
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.left(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'bye');
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.left(ws);
  }

  /**
   * The room's one alarm serves two clocks: the assistant's answer when its wait is over, then the
   * delivery of what is stored and not yet acknowledged; it is set again for whichever comes next.
   */
  override async alarm(): Promise<void> {
    this.deliveryScheduled = false;
    // what is stored goes first: the answer may take the model a while
    let nextDelivery = await this.deliverIfDue();
    if (await this.assistant.answerIfDue()) nextDelivery = await this.deliverIfDue();
    const next = Math.min(nextDelivery ?? Infinity, this.assistant.dueAt() ?? Infinity);
    if (next !== Infinity) await this.wakeAt(next);
  }

  /** When a failed delivery is to be tried again (0: none failed): messages that come meanwhile wait for it. */
  private retryAt(): number {
    return Number(this.store.value('retry_at') ?? 0);
  }

  /**
   * Delivers the next batch of stored messages to the webhooks endpoint, unless a failed delivery's
   * backoff is still running; retried with backoff until it is acknowledged. Answers when the next
   * delivery is due, if one is.
   */
  private async deliverIfDue(): Promise<number | undefined> {
    const conversation = this.store.conversation();
    const undelivered = this.store.undelivered(DELIVERY_BATCH);
    if (!conversation || undelivered.length === 0) return undefined;
    if (Date.now() < this.retryAt()) return this.retryAt();
    const { body, messages: batch } = deliveryPayload(conversation, undelivered);
    let status: number;
    try {
      status = (
        await this.deliver(await deliveryRequest(this.env, this.env.ROOM_WEBHOOK_URL ?? 'https://rooms.internal', body))
      ).status;
    } catch (error) {
      console.error('room: delivery failed:', error);
      status = 0;
    }
    const acknowledged = status >= 200 && status < 300;
    if (acknowledged || isPermanentRefusal(status)) {
      // A refusal no retry can change: the messages stay in the room's storage and its history.
      if (!acknowledged)
        console.error(`room: delivery of ${batch.length} messages refused with ${status}; not retried`);
      this.store.markDelivered(batch.map((message) => message.id));
      this.store.setDeliveryAttempts(0);
      this.store.setValue('retry_at', null);
      // What arrived meanwhile (or did not fit the batch) goes next.
      return this.store.undelivered(1).length ? Date.now() : undefined;
    }
    const attempts = this.store.deliveryAttempts() + 1;
    this.store.setDeliveryAttempts(attempts);
    const retryAt = Date.now() + retryDelayMs(attempts);
    this.store.setValue('retry_at', String(retryAt));
    return retryAt;
  }

  private async deliver(request: Request): Promise<Response> {
    if (this.env.ROOM_WEBHOOK_URL) return fetch(request);
    // This Worker's own endpoint, through its service binding to itself: no public round trip, same checks.
    return this.env.SELF.fetch(request);
  }

  /**
   * Sets the alarm for `at` unless it is set for sooner already. One setting at a time: two
   * messages at once must not both read the alarm before either sets it.
   */
  private wakeAt(at: number): Promise<void> {
    // a failed setting does not stop the next
    this.waking = this.waking
      .catch(() => undefined)
      .then(async () => {
        const current = await this.ctx.storage.getAlarm();
        if (current === null || current > at) await this.ctx.storage.setAlarm(at);
      });
    return this.waking;
  }

  /**
   * The conversation's status changed (an event of the conversation, `eventId`). An event told
   * again (the queue delivers at least once) or one older than the last applied changes nothing
   * and is not broadcast again.
   */
  private async changeStatus(request: Request): Promise<Response> {
    const { status, eventId } = (await request.json()) as { status: RoomConversation['status']; eventId: number };
    if (eventId <= this.store.appliedEvent()) return new Response(null, { status: 204 });
    this.store.setAppliedEvent(eventId);
    const conversation = this.store.conversation();
    if (conversation) this.store.setConversation({ ...conversation, status });
    if (status === 'closed') this.assistant.closed();
    this.broadcast(JSON.stringify({ type: 'status', status }));
    return new Response(null, { status: 204 });
  }

  /**
   * One of the room's messages was edited or deleted through the API (an event of the message,
   * `eventId`): the room's copy becomes what Postgres holds, so the welcome's history shows it, and
   * everyone here is told. An event told again, or older than one applied, changes nothing.
   */
  private async changeMessage(request: Request): Promise<Response> {
    const changed = this.store.applyChange((await request.json()) as MessageChange);
    if (changed)
      this.broadcast(changed.deleted ? deletedFrame(changed.message.id) : messageFrame(changed.message, 'edited'));
    return new Response(null, { status: 204 });
  }

  private participants(): Participant[] {
    return this.ctx.getWebSockets().map((ws) => ws.deserializeAttachment() as Participant);
  }

  private left(ws: WebSocket): void {
    const who = ws.deserializeAttachment() as Participant | null;
    if (who) this.broadcast(JSON.stringify({ type: 'presence', event: 'left', who }), ws);
  }

  private broadcast(frame: string, except?: WebSocket): void {
    for (const ws of this.ctx.getWebSockets()) {
      if (ws === except) continue;
      try {
        ws.send(frame);
      } catch {
        // a socket closing under us; its close handler tells the others
      }
    }
  }
}
