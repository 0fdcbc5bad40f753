import type { Env } from '../../app-env';

/** Cron task: measures each installation's AI usage for its current billing period (docs/ai.md). */
export async function meterAiUsage(_env: Env, _at: Date): Promise<void> {}
