import type { Database } from '../db/client';
import type { RoomConversation } from './room-store';

/** What the form's AI assistant answers from, besides the room's own transcript. */
export interface AssistantContext {
  contactName: string;
  formName: string;
  /** published articles a public site shows, best match first: never private, unpublished or deleted ones */
  articles: { id: number; title: string; text: string }[];
  /** the installation's AI usage now: `exhausted` (no add-on, or the allowance used up) and the assistant stays silent */
  usageState: 'ok' | 'warning' | 'exhausted';
}

/** Reads the context of an answer in one exchange; undefined when the assistant may no longer answer in the room. */
export type AssistantContextReader = (
  db: Database,
  room: RoomConversation,
  question: string,
) => Promise<AssistantContext | undefined>;

let reader: AssistantContextReader | undefined;

/**
 * The rooms' way to the installation's data for the assistant, given as the Worker starts
 * (`src/index.ts`): the reading is the conversations group's (`read-assistant-context.ts`), and
 * the room's protocol in `realtime/` imports no resource group.
 */
export function setAssistantContextReader(read: AssistantContextReader): void {
  reader = read;
}

export function assistantContextReader(): AssistantContextReader {
  if (!reader) throw new Error('no assistant context reader was set as the Worker started');
  return reader;
}
