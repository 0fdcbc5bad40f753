// The chat assistant's words as the widget is shown them while the model writes: always the start
// of the stored answer, and the whole of it once the answer is complete.
import { describe, expect, it } from 'vitest';
import { StreamedText, takeCitations } from '../../src/lib/ai-model/prompt-text';

const GIVEN = [1, 2, 12];
const finish = (raw: string) => takeCitations(raw.split('[HANDOVER]').join(''), GIVEN).text;

/** The text cut into pieces at `cuts` (ascending offsets). */
const pieces = (text: string, cuts: number[]) =>
  [0, ...cuts, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));

/** Streams the pieces: what was shown after each, and in all. */
function stream(parts: string[]): { steps: string[]; all: string } {
  const shown = new StreamedText(finish);
  const steps: string[] = [];
  let all = '';
  for (const part of parts) {
    all += shown.push(part);
    steps.push(all);
  }
  all += shown.end();
  return { steps, all };
}

/** Every way to cut `text` in two and three pieces, and word by word as a model streams. */
function chunkings(text: string): string[][] {
  const ways: string[][] = [text.match(/\S+\s*|\s+/g) ?? [text]];
  for (let i = 1; i < text.length; i++) {
    ways.push(pieces(text, [i]));
    for (let j = i + 1; j < text.length; j += 3) ways.push(pieces(text, [i, j]));
  }
  return ways;
}

const ANSWERS = [
  'Hello Grace.\n\nReturning a tent explains what to do [A12].\n\nAnything else?',
  '[A1] Hello.',
  '\n  Hello [A2][A1] there [A1].',
  '1  [A2][A1]1',
  'Prices [are] in [A99] euros [A1]',
  'Write [A1',
  'Tents are great. [HANDOVER]',
  'A [ bracket and [HAND over',
];

describe('StreamedText', () => {
  it('shows the start of the stored answer at every piece, and all of it at the end, however the words come', () => {
    for (const answer of ANSWERS) {
      const stored = finish(answer);
      for (const parts of chunkings(answer)) {
        const { steps, all } = stream(parts);
        for (const step of steps) expect(stored.startsWith(step), JSON.stringify({ answer, parts, step })).toBe(true);
        expect(all, JSON.stringify({ answer, parts })).toBe(stored);
      }
    }
  });

  it('never shows a marker, even one cut across pieces', () => {
    const { steps } = stream(['See [', 'A', '12', '] and [H', 'ANDOVER', ']']);
    expect(steps.join(' ')).not.toMatch(/\[/);
  });

  it('holds a marker nested in another back rather than show what it would take back', () => {
    const answer = 'x [A[A1]1] y';
    const stored = finish(answer);
    for (const parts of chunkings(answer)) {
      const { steps, all } = stream(parts);
      for (const step of [...steps, all]) expect(stored.startsWith(step)).toBe(true);
    }
  });
});
