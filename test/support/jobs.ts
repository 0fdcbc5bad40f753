// A company import as a client runs it: POST the CSV, then read the background job until it is done.
import { expect } from 'vitest';
import { api } from './api';
import { backgroundWait } from './room';

/** Starts an import and answers its job id, checking the 201 with no body and its Location. */
export async function startImport(key: string, csv: string | FormData): Promise<number> {
  const response = await api('/v2/companies/import.csv', {
    method: 'POST',
    key,
    body: csv,
    headers: typeof csv === 'string' ? { 'content-type': 'text/csv' } : {},
  });
  expect(response.status, response.text).toBe(201);
  expect(response.text).toBe('');
  const location = response.headers.get('location') ?? '';
  expect(location).toMatch(/^\/v2\/backgroundjobs\/\d+\.json$/);
  return Number(location.match(/(\d+)\.json$/)![1]);
}

/** The job as `GET /v2/backgroundjobs/{id}.json` answers it. */
export async function readJob(key: string, jobId: number) {
  const response = await api(`/v2/backgroundjobs/${jobId}.json`, { key });
  expect(response.status, response.text).toBe(200);
  return response.body.backgroundjob;
}

/**
 * Polls the job until it is completed, and answers it. A job that ends any other way (failed,
 * cancelled) fails the test at once, with what the job says.
 */
export async function finishedJob(key: string, jobId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + backgroundWait(timeoutMs);
  for (;;) {
    const job = await readJob(key, jobId);
    if (job.status === 'completed') return job;
    if (job.status !== 'queued' && job.status !== 'running')
      throw new Error(`job ${jobId} ended ${job.status}, not completed: ${JSON.stringify(job)}`);
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
