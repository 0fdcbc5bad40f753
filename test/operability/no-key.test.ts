// A Worker deployed without its key (`PM_TOKEN_KEY`, README "Deploying"): what needs the key
// answers 503 `notConfigured` naming it, in the one error body (src/pipeline/error-handler.ts), the
// operators read why in the log, nothing is stored, and what does not need the key still works.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { serveWorker, type WorkerUnderTest } from '../../scripts/worker-under-test';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';

let worker: WorkerUnderTest;
let site: SeededInstallation;
const lines: string[] = [];

beforeAll(async () => {
  site = await newInstallation('no-key');
  worker = await serveWorker(inject('stackParts'), inject('workerScript'), {
    vars: { PM_TOKEN_KEY: '' },
    onLogLine: (line) => lines.push(line),
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
});

async function send(path: string, init: { method?: string; body?: unknown; key?: boolean } = {}) {
  const url = `${worker.url}${path}`;
  const method = init.method ?? 'GET';
  const response = await fetch(url, {
    method,
    headers: {
      ...(init.key === false ? {} : { authorization: `Bearer ${site.users.owner.apiKey}` }),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return checkAnswer<any>(method, url, response);
}

describe('a Worker without its key', () => {
  it('answers 503 naming PM_TOKEN_KEY where a secret is sealed, and stores nothing', async () => {
    const made = await send('/v2/webhookendpoints.json', {
      method: 'POST',
      body: {
        // the local stack's allowance: http to 127.0.0.1 (scripts/worker-vars.ts)
        webhookendpoint: { url: 'http://127.0.0.1:9/hook', token: 'a-secret-of-theirs' },
      },
    });
    expect(made.status, made.text).toBe(503);
    expect(made.body.errors).toEqual([
      {
        code: 'notConfigured',
        source: 'PM_TOKEN_KEY',
        detail: 'the server cannot use its key: PM_TOKEN_KEY is not set',
      },
    ]);
    expect(await rows('SELECT id FROM webhook_endpoints WHERE installation_id = $1', [site.id])).toEqual([]);
    expect(lines.some((line) => line.includes('PM_TOKEN_KEY cannot be used'))).toBe(true);
  });

  it('answers 503 where a signed link is read (a survey link), not a 404 that blames the link', async () => {
    const survey = await send(`/v2/happiness/5-${'a'.repeat(40)}.json`, { key: false });
    expect(survey.status, survey.text).toBe(503);
    expect(survey.body.errors[0]).toMatchObject({ code: 'notConfigured', source: 'PM_TOKEN_KEY' });
  });

  it('serves what needs no key', async () => {
    const list = await send('/v2/webhookendpoints.json');
    expect(list.status, list.text).toBe(200);
  });
});
