/**
 * The wait before try `attempts + 1` of something sent out (a webhook delivery, a mail): the base
 * doubled per failure, up to an hour, with ±20 % jitter so that failures at one moment do not all
 * come back at one moment.
 */
export function backoffSeconds(attempts: number, baseSeconds: number, random = Math.random()): number {
  const plain = Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1));
  return Math.max(1, Math.round(plain * (0.8 + 0.4 * random)));
}

/** The first wait before a failed queue message is delivered again, when `JOB_RETRY_BASE_SECONDS` is unset. */
const DEFAULT_JOB_RETRY_BASE_SECONDS = 2;

/**
 * The wait before a queue message whose consumer failed (try `attempts`) is delivered again: the
 * base (`JOB_RETRY_BASE_SECONDS`, 2 s when unset) doubled per failure, up to `maxSeconds`.
 */
export function retryDelaySeconds(
  attempts: number,
  env: { JOB_RETRY_BASE_SECONDS?: string },
  maxSeconds: number,
): number {
  const set =
    env.JOB_RETRY_BASE_SECONDS === undefined || env.JOB_RETRY_BASE_SECONDS === ''
      ? NaN
      : Number(env.JOB_RETRY_BASE_SECONDS);
  const base = Number.isFinite(set) && set >= 0 ? set : DEFAULT_JOB_RETRY_BASE_SECONDS;
  return Math.round(Math.min(maxSeconds, base * 2 ** Math.max(0, attempts - 1)));
}
