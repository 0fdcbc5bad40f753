/**
 * How closely a sent reply kept to the AI draft it came from (docs/ai.md): word-level edit
 * distance, normalised to a percentage. Both texts are compared as lists of words, lower-cased,
 * with runs of white space as one separator, so re-wrapping a line or changing case is no edit.
 * similarity = 100 × (1 − distance / max(words in draft, words in reply)).
 */
export function textSimilarity(draft: string, sent: string): number {
  const a = words(draft);
  const b = words(sent);
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 100;
  return Math.round(1000 * (1 - wordDistance(a, b) / longest)) / 10;
}

/** At or above this a reply was edited, below it rewritten; a reply equal to its draft was sent as is. */
export const EDITED_FROM = 50;

export type ReplyOutcome = 'sentAsIs' | 'edited' | 'rewritten';

export function replyOutcome(similarity: number): ReplyOutcome {
  if (similarity >= 100) return 'sentAsIs';
  return similarity >= EDITED_FROM ? 'edited' : 'rewritten';
}

function words(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().split(/\s+/u).filter(Boolean);
}

/** Levenshtein distance over words, in two rows of memory. */
function wordDistance(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
