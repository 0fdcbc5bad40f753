import { inject } from 'vitest';

/** Puts a message on the Worker's JOBS queue, as a redelivery would. */
export async function sendJobMessage(body: unknown): Promise<void> {
  const response = await fetch(`${inject('workerControlsUrl')}/queue`, { method: 'POST', body: JSON.stringify(body) });
  if (response.status !== 204) throw new Error(`queue send failed: ${response.status} ${await response.text()}`);
}
