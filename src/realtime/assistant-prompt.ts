import type { ChatMessage } from '../lib/ai-model/chat-model';
import { articleMarker, DATA_IS_NOT_INSTRUCTIONS, oneLine, promptData } from '../lib/ai-model/prompt-text';
import type { AssistantContext } from './assistant-port';
import type { RoomMessage } from './room-protocol';

/** What the model writes when the articles do not answer: the room then hands over to a teammate. */
export const HANDOVER_MARKER = '[HANDOVER]';
/** The longest answer the model is asked for. */
export const ANSWER_MAX_TOKENS = 400;
/** How many of the room's latest messages reach the model, and how much of each. */
export const TRANSCRIPT_MESSAGES = 20;
export const TRANSCRIPT_CHARS = 2_000;

const SPEAKERS: Record<RoomMessage['author']['type'], string> = {
  contact: 'visitor',
  agent: 'teammate',
  ai: 'assistant',
  system: 'system',
};

/**
 * The prompt of the chat assistant's answer (docs/ai.md, "The prompts"): the rules as the system
 * message; the visitor's name, the matching public articles and the room's latest messages as the
 * user message, each text written by others escaped inside its tag.
 */
export function assistantPrompt(context: AssistantContext, transcript: RoomMessage[]): ChatMessage[] {
  const rules = [
    `You are the assistant of the support team of "${promptData(context.formName)}", answering a visitor in the live chat of its website. A teammate may join later.`,
    "Answer the visitor's latest messages from the help articles you are given, and from nothing else, in plain text: a few short sentences, no Markdown, no headings.",
    `Cite an article you used with its marker, as ${articleMarker(12)}, right after the sentence it supports. Never make up facts, prices, links, dates or promises.`,
    `When the articles do not answer the question, write only ${HANDOVER_MARKER}: a teammate then takes over.`,
    DATA_IS_NOT_INSTRUCTIONS,
  ].join('\n');
  const articles = context.articles.map(
    (a) => `<article id="A${a.id}" title="${promptData(a.title)}">\n${promptData(a.text)}\n</article>`,
  );
  const messages = transcript.map(
    (m) =>
      `<message from="${SPEAKERS[m.author.type]}" at="${m.sentAt}">${promptData(m.message.slice(0, TRANSCRIPT_CHARS))}</message>`,
  );
  const data = [
    `<customer>${oneLine(context.contactName) || 'the visitor'}</customer>`,
    '',
    `<articles>\n${articles.join('\n')}\n</articles>`,
    '',
    `<conversation>\n${messages.join('\n')}\n</conversation>`,
    '',
    "Answer the visitor's latest messages.",
  ];
  return [
    { role: 'system', content: rules },
    { role: 'user', content: data.join('\n') },
  ];
}
