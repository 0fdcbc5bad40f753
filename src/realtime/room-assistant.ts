import type { Env } from '../app-env';
import { openDatabase } from '../db/client';
import { modelConfig, ModelUnavailable, streamCompletion } from '../lib/ai-model/chat-model';
import { takeCitations, WordsWithoutMarkers } from '../lib/ai-model/prompt-text';
import { readAssistantContext } from './assistant-context';
import { ANSWER_MAX_TOKENS, assistantPrompt, HANDOVER_MARKER, TRANSCRIPT_MESSAGES } from './assistant-prompt';
import { MAX_MESSAGE_LENGTH } from './room-limits';
import { messageFrame, streamFrame, type RoomMessage } from './room-protocol';
import type { RoomStore } from './room-store';

/** The room's own writer of the assistant's answers and notices: its client ids are its own. */
const ASSISTANT_SENDER = 'assistant:0';
/** What the visitor reads when the assistant hands the conversation over to a teammate. */
export const HANDOVER_TEXT = 'A teammate will answer you here as soon as they can.';

/** The visitor's message waiting for an answer (the room's sequence number) and when the assistant answers it. */
interface Due {
  seq: number;
  at: number;
  /** answers that failed on something other than the model (the database out of reach): tried again a little later, then handed over */
  failures?: number;
}

/** Tries of an answer that fails on something other than the model before the assistant hands over. */
const ANSWER_TRIES = 3;

/**
 * The form's AI assistant in one room (docs/ai.md, "The chat assistant"). A visitor's message
 * that no teammate answers within the form's wait is answered from the installation's public,
 * published help-doc articles, its words streamed to the room as the model writes them, the whole
 * answer then stored as any message is (author `ai`, delivered and billed once: its client id is
 * the visitor's message's). When the articles do not answer, the allowance is used up, or the
 * model is down, it says nothing of its own: a notice (author `system`) tells the visitor a
 * teammate will answer, and the conversation waits for one (`awaitingTeammate`). Once a teammate
 * has written, or after a hand-over, it stays silent in this conversation.
 */
export class RoomAssistant {
  constructor(
    private readonly store: RoomStore,
    private readonly env: Env,
    private readonly broadcast: (frame: string) => void,
  ) {}

  /** When the assistant is next due to answer, if it is. */
  dueAt(): number | undefined {
    return this.due()?.at;
  }

  /**
   * A message was accepted in the room: a visitor's starts the wait (or joins the one running), a
   * teammate's ends the assistant's part. Answers when the assistant is then due.
   */
  noticed(message: RoomMessage): number | undefined {
    if (message.author.type === 'agent' || (message.author.type === 'ai' && message.author.id > 0)) {
      this.standDown();
      return undefined;
    }
    const conversation = this.store.conversation();
    if (message.author.type !== 'contact' || !conversation?.assistant || conversation.status !== 'open')
      return undefined;
    if (this.store.value('assistant_off')) return undefined;
    const due = {
      seq: Number(message.id),
      at: this.due()?.at ?? Date.now() + conversation.assistant.waitSeconds * 1000,
    };
    this.setDue(due);
    return due.at;
  }

  /** The conversation closed: nothing is answered any more. */
  closed(): void {
    this.setDue(null);
  }

  /** Answers the waiting visitor if the wait is over; true when it stored a message. */
  async answerIfDue(): Promise<boolean> {
    const due = this.due();
    if (!due || due.at > Date.now()) return false;
    try {
      return await this.answer(due);
    } catch (error) {
      console.error('room: the assistant could not answer:', error);
      const failures = (due.failures ?? 0) + 1;
      if (failures >= ANSWER_TRIES) return this.handOver(due);
      this.setDue({ ...due, at: Date.now() + 5_000 * failures, failures });
      return false;
    }
  }

  private async answer(due: Due): Promise<boolean> {
    const conversation = this.store.conversation();
    const transcript = this.store.recent(TRANSCRIPT_MESSAGES);
    // the visitor's messages since anyone else last wrote
    const unanswered: string[] = [];
    for (const message of [...transcript].reverse()) {
      if (message.author.type !== 'contact') break;
      unanswered.unshift(message.message);
    }
    const question = unanswered.join('\n');
    if (!conversation || !question) {
      this.setDue(null);
      return false;
    }
    const db = openDatabase(this.env);
    try {
      const context = await readAssistantContext(db, conversation, question);
      if (!context) {
        this.setDue(null);
        return false;
      }
      const config = modelConfig(this.env);
      if (context.usage.state === 'exhausted' || context.articles.length === 0 || !config) return this.handOver(due);
      const stream = `answer-${due.seq}`;
      const shown = new WordsWithoutMarkers();
      let streamed = false;
      const completion = await streamCompletion(
        config,
        assistantPrompt(context, transcript),
        { maxTokens: ANSWER_MAX_TOKENS, temperature: 0.2 },
        (words) => {
          const visible = shown.push(words);
          if (visible && !this.store.value('assistant_off')) {
            streamed = true;
            this.broadcast(streamFrame(stream, visible));
          }
        },
      ).catch((error: unknown) => {
        if (error instanceof ModelUnavailable) return undefined;
        throw error;
      });
      const rest = shown.end();
      if (rest && !this.store.value('assistant_off')) {
        streamed = true;
        this.broadcast(streamFrame(stream, rest));
      }
      const { text, cited } = takeCitations(
        completion?.text ?? '',
        context.articles.map((a) => a.id),
      );
      const answer = text
        .replace(/\u0000/g, '')
        .slice(0, MAX_MESSAGE_LENGTH)
        .trim();
      const keep = completion && answer && !completion.text.includes(HANDOVER_MARKER) && cited.length > 0;
      if (!keep || this.store.value('assistant_off')) {
        if (streamed) this.broadcast(streamFrame(stream, null));
        // a teammate wrote while the model did: the conversation is theirs
        if (this.store.value('assistant_off')) return false;
        return this.handOver(due);
      }
      this.post(due, { clientId: stream, author: { type: 'ai', id: 0 }, message: answer });
      return true;
    } finally {
      await db.close();
    }
  }

  /** The notice that a teammate will answer; the assistant says nothing more here. */
  private handOver(due: Due): true {
    this.post(due, { clientId: `handover-${due.seq}`, author: { type: 'system', id: 0 }, message: HANDOVER_TEXT });
    this.standDown();
    return true;
  }

  /**
   * Stores and shows the assistant's message for the visitor's message `due.seq`, once (its client
   * id is derived from that message). A visitor who wrote again meanwhile waits afresh.
   */
  private post(due: Due, message: Pick<RoomMessage, 'clientId' | 'author' | 'message'>): void {
    if (!this.store.byClientId(ASSISTANT_SENDER, message.clientId!)) {
      const stored = this.store.add(ASSISTANT_SENDER, { ...message, aiDraft: null, sentAt: new Date().toISOString() });
      this.broadcast(messageFrame(stored));
    }
    const now = this.due();
    const wait = (this.store.conversation()?.assistant?.waitSeconds ?? 0) * 1000;
    this.setDue(now && now.seq > due.seq ? { seq: now.seq, at: Date.now() + wait } : null);
  }

  private standDown(): void {
    this.store.setValue('assistant_off', '1');
    this.setDue(null);
  }

  private due(): Due | undefined {
    const value = this.store.value('assistant_due');
    return value ? (JSON.parse(value) as Due) : undefined;
  }

  private setDue(due: Due | null): void {
    this.store.setValue('assistant_due', due && JSON.stringify(due));
  }
}
