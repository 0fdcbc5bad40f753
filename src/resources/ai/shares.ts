/**
 * Each count's share of their total, in percent with one decimal, adding up to exactly 100.0:
 * every share is rounded down to a tenth, and the tenths still missing go one each to the shares
 * that lost the most by it (largest remainder), the earlier one first on a tie. All zero when the
 * total is zero.
 */
export function percentShares(counts: readonly number[]): number[] {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return counts.map(() => 0);
  // In tenths of a percent: 1000 is the whole. Integer arithmetic keeps the remainders exact.
  const tenths = counts.map((count) => Math.floor((count * 1000) / total));
  const remainders = counts.map((count, index) => ({ index, remainder: (count * 1000) % total }));
  let missing = 1000 - tenths.reduce((sum, value) => sum + value, 0);
  remainders.sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of remainders) {
    if (missing === 0) break;
    tenths[index] = (tenths[index] ?? 0) + 1;
    missing -= 1;
  }
  return tenths.map((value) => value / 10);
}
