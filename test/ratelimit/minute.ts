/**
 * Waits, when the clock minute has less than `margin` ms left, for the next one: a count that
 * must not straddle two minutes (the limits count whole clock minutes) starts early in one.
 */
export async function earlyInAMinute(margin = 25_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left + 200));
}
