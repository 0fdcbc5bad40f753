import type { Env } from '../app-env';
import { openDatabase } from '../db/client';
import { modelConfig, ModelUnavailable, streamCompletion } from '../lib/ai-model/chat-model';
import { StreamedText, takeCitations } from '../lib/ai-model/prompt-text';
import { assistantContextReader, type AssistantContext } from './assistant-port';
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
/** Answers the assistant gives in one conversation before it hands over: a visitor cannot spend the allowance. */
export const ANSWERS_PER_CONVERSATION = 10;

/** The stored answer made of the model's whole text: its markers (and a hand-over's) dropped, within a message's length. */
function answerText(raw: string, given: readonly number[]): { text: string; cited: number[] } {
  const { text, cited } = takeCitations(raw.split(HANDOVER_MARKER).join(''), given);
  return {
    text: text
      .replace(/\u0000/g, '')
      .slice(0, MAX_MESSAGE_LENGTH)
      .trim(),
    cited,
  };
}

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
    if (!this.stillWanted(due)) {
      this.setDue(null);
      return false;
    }
    try {
      return await this.answer(due);
    } catch (error) {
      console.error('room: the assistant could not answer:', error);
      // what happened meanwhile stands: a teammate who wrote, a close, the visitor's newer message
      const now = this.due();
      if (!now || !this.stillWanted(due)) return false;
      const failures = (due.failures ?? 0) + 1;
      if (failures >= ANSWER_TRIES) return this.handOver(due);
      this.setDue({ ...now, at: Date.now() + 5_000 * failures, failures });
      return false;
    }
  }

  private async answer(due: Due): Promise<boolean> {
    // words of an answer a restarted room never finished go, whatever this run does
    this.takeBackUnfinishedStream();
    const conversation = this.store.conversation()!;
    const transcript = this.store.recent(TRANSCRIPT_MESSAGES);
    // the visitor's messages since anyone else last wrote
    const unanswered: string[] = [];
    for (const message of [...transcript].reverse()) {
      if (message.author.type !== 'contact') break;
      unanswered.unshift(message.message);
    }
    if (unanswered.length === 0) {
      this.setDue(null);
      return false;
    }
    if (this.store.sentBy(ASSISTANT_SENDER, 'ai') >= ANSWERS_PER_CONVERSATION) return this.handOver(due);
    const db = openDatabase(this.env);
    let context: AssistantContext | undefined;
    try {
      context = await assistantContextReader()(db, conversation, unanswered.join('\n'));
    } finally {
      await db.close();
    }
    if (!context) {
      this.setDue(null);
      return false;
    }
    const config = modelConfig(this.env);
    if (context.usageState === 'exhausted' || context.articles.length === 0 || !config) return this.handOver(due);

    const given = context.articles.map((a) => a.id);
    const stream = `answer-${due.seq}`;
    this.store.setValue('assistant_stream', stream);
    const shown = new StreamedText((raw) => answerText(raw, given).text);
    const show = (words: string) => {
      if (words && this.stillWanted(due)) this.broadcast(streamFrame(stream, words));
    };
    const completion = await streamCompletion(
      config,
      assistantPrompt(context, transcript),
      { maxTokens: ANSWER_MAX_TOKENS, temperature: 0.2 },
      (words) => show(shown.push(words)),
    ).catch((error: unknown) => {
      if (error instanceof ModelUnavailable) return undefined;
      throw error;
    });
    const { text, cited } = answerText(completion?.text ?? '', given);
    const keep = completion && text && !completion.text.includes(HANDOVER_MARKER) && cited.length > 0;
    if (keep && this.stillWanted(due)) {
      show(shown.end());
      this.store.setValue('assistant_stream', null);
      return this.post(due, { clientId: stream, author: { type: 'ai', id: 0 }, message: text });
    }
    this.takeBackUnfinishedStream();
    // (a teammate who wrote meanwhile, or a close, leaves the conversation as it is)
    return this.handOver(due);
  }

  /** Words of an answer that was not kept (or was cut short by the room's restart) are taken back. */
  private takeBackUnfinishedStream(): void {
    const unfinished = this.store.value('assistant_stream');
    if (unfinished) this.broadcast(streamFrame(unfinished, null));
    this.store.setValue('assistant_stream', null);
  }

  /** Whether the assistant may still speak for the visitor's message `due.seq`: open, no teammate, nothing cleared the wait. */
  private stillWanted(due: Due): boolean {
    const now = this.due();
    return (
      now !== undefined &&
      now.seq >= due.seq &&
      this.store.conversation()?.status === 'open' &&
      !this.store.value('assistant_off')
    );
  }

  /** The notice that a teammate will answer; the assistant says nothing more here. */
  private handOver(due: Due): boolean {
    if (!this.stillWanted(due)) return false;
    const posted = this.post(due, {
      clientId: `handover-${due.seq}`,
      author: { type: 'system', id: 0 },
      message: HANDOVER_TEXT,
    });
    this.standDown();
    return posted;
  }

  /**
   * Stores and shows the assistant's message for the visitor's message `due.seq`, once (its client
   * id is derived from that message). A visitor who wrote again meanwhile waits afresh.
   */
  private post(due: Due, message: Pick<RoomMessage, 'clientId' | 'author' | 'message'>): boolean {
    let posted = false;
    if (!this.store.byClientId(ASSISTANT_SENDER, message.clientId!)) {
      const stored = this.store.add(ASSISTANT_SENDER, { ...message, aiDraft: null, sentAt: new Date().toISOString() });
      this.broadcast(messageFrame(stored));
      posted = true;
    }
    const now = this.due();
    const wait = (this.store.conversation()?.assistant?.waitSeconds ?? 0) * 1000;
    this.setDue(now && now.seq > due.seq ? { seq: now.seq, at: Date.now() + wait } : null);
    return posted;
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
