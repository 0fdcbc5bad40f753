import { describe, expect, it } from 'vitest';
import { EDITED_FROM, replyOutcome, textSimilarity } from '../../src/lib/text-similarity';

describe('textSimilarity', () => {
  it('is 100 for the same text, ignoring case, Unicode forms and how white space is laid out', () => {
    expect(textSimilarity('Thanks for writing in!', 'Thanks for writing in!')).toBe(100);
    expect(textSimilarity('Thanks for\n  writing in!', '  THANKS for writing\tin! ')).toBe(100);
    expect(textSimilarity('ﬁle ready', 'file ready')).toBe(100);
    expect(textSimilarity('', '   ')).toBe(100);
  });

  it('counts word edits against the longer text', () => {
    // one substitution in four words
    expect(textSimilarity('your order has shipped', 'your parcel has shipped')).toBe(75);
    // one word added to four: distance 1 over 5 words
    expect(textSimilarity('your order has shipped', 'your order has shipped today')).toBe(80);
    // one word removed, the same measure either way round
    expect(textSimilarity('your order has shipped today', 'your order has shipped')).toBe(80);
  });

  it('rounds to one decimal', () => {
    // 1 edit in 3 words: 66.666...
    expect(textSimilarity('a b c', 'a b d')).toBe(66.7);
    // 2 edits in 3 words: 33.333...
    expect(textSimilarity('a b c', 'a x y')).toBe(33.3);
  });

  it('is 0 when nothing is kept, and when one text is empty', () => {
    expect(textSimilarity('hello there', 'goodbye now')).toBe(0);
    expect(textSimilarity('hello there', '')).toBe(0);
    expect(textSimilarity('', 'hello there')).toBe(0);
  });

  it('treats punctuation as part of a word', () => {
    expect(textSimilarity('Thanks!', 'Thanks.')).toBe(0);
  });

  it('counts a moved word as two edits', () => {
    expect(textSimilarity('a b c d', 'b a c d')).toBe(50);
  });
});

describe('replyOutcome', () => {
  it('sorts by the documented thresholds', () => {
    expect(EDITED_FROM).toBe(50);
    expect(replyOutcome(100)).toBe('sentAsIs');
    expect(replyOutcome(99.9)).toBe('edited');
    expect(replyOutcome(EDITED_FROM)).toBe('edited');
    expect(replyOutcome(49.9)).toBe('rewritten');
    expect(replyOutcome(0)).toBe('rewritten');
  });

  it('classes a reply by its similarity to the draft', () => {
    expect(replyOutcome(textSimilarity('We will refund you today.', 'we will refund you today.'))).toBe('sentAsIs');
    expect(replyOutcome(textSimilarity('We will refund you today.', 'We will refund you tomorrow.'))).toBe('edited');
    expect(replyOutcome(textSimilarity('We will refund you today.', 'Refunds take a week, sorry.'))).toBe('rewritten');
  });
});
