import { inject } from 'vitest';
import { eventually } from './room';

/** The Worker's JSON log lines with these fields (a request's `requestId`, say), as workerd printed them. */
export async function workerLogLines(fields: Record<string, string>): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${inject('workerControlsUrl')}/logs?${new URLSearchParams(fields)}`);
  if (!response.ok) throw new Error(`worker logs: ${response.status}`);
  return (await response.json()) as Record<string, unknown>[];
}

/** Waits for the Worker's log lines with these fields (the line of a request is written as it ends). */
export function awaitLogLines(fields: Record<string, string>, count = 1): Promise<Record<string, unknown>[]> {
  return eventually(async () => {
    const lines = await workerLogLines(fields);
    return lines.length >= count ? lines : undefined;
  }, 5_000);
}
