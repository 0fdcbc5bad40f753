/**
 * The wait before try `attempts + 1` of something sent out (a webhook delivery, a mail): the base
 * doubled per failure, up to an hour, with ±20 % jitter so that failures at one moment do not all
 * come back at one moment.
 */
export function backoffSeconds(attempts: number, baseSeconds: number, random = Math.random()): number {
  const plain = Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(plain * (0.8 + 0.4 * random)));
}
