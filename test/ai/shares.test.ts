import { describe, expect, it } from 'vitest';
import { percentShares } from '../../src/resources/ai/shares';

const sum = (values: number[]) => Math.round(values.reduce((total, value) => total + value, 0) * 10);

describe('percentShares', () => {
  it('is all zero when there is nothing to share', () => {
    expect(percentShares([0, 0, 0])).toEqual([0, 0, 0]);
  });

  it('gives the missing tenth to the largest remainder, the earlier share on a tie', () => {
    expect(percentShares([1, 1, 1])).toEqual([33.4, 33.3, 33.3]);
    expect(percentShares([3, 2, 2])).toEqual([42.8, 28.6, 28.6]);
    expect(percentShares([1, 5, 1])).toEqual([14.3, 71.4, 14.3]);
    expect(percentShares([2, 1, 0])).toEqual([66.7, 33.3, 0]);
  });

  it('keeps exact shares as they are', () => {
    expect(percentShares([1, 0, 0])).toEqual([100, 0, 0]);
    expect(percentShares([1, 1, 2])).toEqual([25, 25, 50]);
    expect(percentShares([1, 7, 0])).toEqual([12.5, 87.5, 0]);
  });

  it('adds up to exactly 100.0 for every split of up to 60 replies', () => {
    for (let a = 0; a <= 60; a++) {
      for (let b = 0; a + b <= 60; b++) {
        for (let c = 0; a + b + c <= 60; c++) {
          if (a + b + c === 0) continue;
          const shares = percentShares([a, b, c]);
          expect(sum(shares), `${a}/${b}/${c}: ${shares.join(' ')}`).toBe(1000);
          // no share is more than a tenth from its exact value
          [a, b, c].forEach((count, index) =>
            expect(Math.abs(shares[index]! - (100 * count) / (a + b + c))).toBeLessThan(0.1 + 1e-9),
          );
        }
      }
    }
  });
});
