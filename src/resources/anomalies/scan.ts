import type { Env } from '../../app-env';

/** Cron task: looks for bursts and jumps and records them as anomalies (docs/resources/anomalies.md). */
export async function scanForAnomalies(_env: Env, _at: Date): Promise<void> {}
