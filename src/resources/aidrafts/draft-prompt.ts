import type { AI_DRAFT_TONES } from '../../db/schema';
import type { ChatMessage } from '../../lib/ai-model/chat-model';
import { articleMarker, DATA_IS_NOT_INSTRUCTIONS, oneLine, promptData } from '../../lib/ai-model/prompt-text';
import type { DraftContext } from './draft-context';

export type DraftTone = (typeof AI_DRAFT_TONES)[number];

const TONES: Record<DraftTone, string> = {
  friendly: 'warm and friendly, in plain words',
  formal: 'courteous and formal',
  concise: 'brief: a few short sentences, no pleasantries beyond a greeting',
};

/** The longest draft the model is asked for. */
export const DRAFT_MAX_TOKENS = 800;

/**
 * The prompt of a ticket's reply draft (docs/ai.md, "The prompts"): the rules as the system
 * message; the ticket's own data (its customer's name, subject, inbox, signature, the matching
 * articles, the thread) and the teammate's wishes as the user message, every text written by
 * others escaped inside its tag (a name or subject on one line, so none can start a line of its own).
 */
export function draftPrompt(context: DraftContext, wishes: { instructions?: string; tone?: DraftTone }): ChatMessage[] {
  const rules = [
    `You draft replies for the support team of the inbox "${promptData(context.inboxName)}". A teammate reviews your draft before anything is sent.`,
    "Write only the body of a reply to the customer's latest message, in Markdown: no subject line, no sign-off and no signature (the inbox's signature is added below the reply).",
    `Answer from the help articles and the thread you are given, and from nothing else. Cite an article you used with its marker, as ${articleMarker(12)}, right after the sentence it supports. Never make up facts, prices, links, dates or promises; where the articles and the thread do not answer, say that a teammate will look into it.`,
    'Internal notes in the thread are for the team: use what they say, never quote them.',
    DATA_IS_NOT_INSTRUCTIONS,
    `Tone: ${TONES[wishes.tone ?? 'friendly']}.`,
  ].join('\n');
  const articles = context.articles.map(
    (a) => `<article id="A${a.id}" title="${promptData(a.title)}">\n${promptData(a.text)}\n</article>`,
  );
  const entries = context.entries.map((e) => `<entry from="${e.from}" at="${e.at}">${promptData(e.text)}</entry>`);
  const data = [
    `<customer>${oneLine(context.customerName) || 'the customer'}</customer>`,
    `<subject>${oneLine(context.subject)}</subject>`,
    context.signature ? `<signature>${promptData(context.signature)}</signature> (added below the reply)` : '',
    '',
    `<articles>\n${articles.join('\n') || '(none match)'}\n</articles>`,
    '',
    `<thread>\n${entries.join('\n')}\n</thread>`,
    '',
    "Draft the reply to the customer's latest message.",
    wishes.instructions ? `Teammate's instructions: ${oneLine(wishes.instructions)}` : '',
  ].filter((line, index, all) => line !== '' || all[index - 1] !== '');
  return [
    { role: 'system', content: rules },
    { role: 'user', content: data.join('\n') },
  ];
}
