// The model port (src/lib/ai-model/chat-model.ts) against a stand-in of its own, over HTTP: whole
// answers and server-sent events word by word, the bearer key, retries on 429 and 5xx (and never
// on another 4xx), a stall before the head and in the middle of a stream, and the settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAiModelStandIn, STAND_IN_MODEL, type AiModelStandIn } from '../../scripts/stack/ai-model-stand-in';
import {
  complete,
  modelConfig,
  ModelUnavailable,
  streamCompletion,
  type ModelConfig,
} from '../../src/lib/ai-model/chat-model';

let model: AiModelStandIn;
let config: ModelConfig;
let seq = 0;
const marker = () => `port${Date.now().toString(36)}${seq++}`;

const ask = (words: string) => [
  { role: 'system' as const, content: 'You answer briefly.' },
  {
    role: 'user' as const,
    content: `<customer>Grace Hopper</customer>\n<thread>\n<entry from="customer">${words}</entry>\n</thread>`,
  },
];

async function plan(match: string, answers: Record<string, unknown>[]) {
  await fetch(`${model.controlUrl}/plan`, { method: 'POST', body: JSON.stringify({ match, answers }) });
}

const requestsFor = async (match: string) =>
  (await fetch(`${model.controlUrl}/requests?match=${match}`).then((r) => r.json())) as Record<string, unknown>[];

beforeAll(async () => {
  model = await startAiModelStandIn();
  config = modelConfig({
    AI_BASE_URL: `${model.url}/`,
    AI_MODEL: STAND_IN_MODEL,
    AI_API_KEY: model.apiKey,
    AI_TIMEOUT_MS: '300',
    AI_RETRY_BASE_MS: '10',
  })!;
});

afterAll(async () => {
  await model?.stop();
});

describe('the model port', () => {
  it('reads its settings, with defaults, and none without a base or a model', () => {
    expect(config).toEqual({
      baseUrl: model.url,
      model: STAND_IN_MODEL,
      apiKey: model.apiKey,
      attemptTimeoutMs: 300,
      attempts: 3,
      retryBaseMs: 10,
    });
    expect(modelConfig({ AI_BASE_URL: 'https://gw.example/compat', AI_MODEL: 'm', AI_ATTEMPTS: '40' })).toEqual({
      baseUrl: 'https://gw.example/compat',
      model: 'm',
      apiKey: undefined,
      attemptTimeoutMs: 30_000,
      attempts: 5,
      retryBaseMs: 500,
    });
    expect(modelConfig({ AI_MODEL: 'm' })).toBeUndefined();
    expect(modelConfig({ AI_BASE_URL: 'https://gw.example/compat' })).toBeUndefined();
  });

  it('answers a whole completion, sending the model, the messages, the limit and the key', async () => {
    const words = marker();
    const answer = await complete(config, ask(`my ${words} broke`), { maxTokens: 50, temperature: 0.2 });
    expect(answer).toEqual({
      text: `Hello Grace Hopper, thank you for writing about "my ${words} broke".\n\nThe help articles do not answer this: a teammate will look into it. [HANDOVER]`,
      model: STAND_IN_MODEL,
    });
    const [sent] = await requestsFor(words);
    expect(sent).toEqual({
      model: STAND_IN_MODEL,
      messages: ask(`my ${words} broke`),
      max_tokens: 50,
      temperature: 0.2,
    });
    await expect(
      complete({ ...config, apiKey: 'wrong' }, ask(words), { maxTokens: 10 }),
      'a refused key is not asked again',
    ).rejects.toThrow(new ModelUnavailable('the model answered 401'));
  });

  it('streams the answer word by word, and answers the whole at the end', async () => {
    const words = marker();
    const pieces: string[] = [];
    const answer = await streamCompletion(config, ask(words), { maxTokens: 50 }, (piece) => void pieces.push(piece));
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(answer.text);
    expect(answer.text).toContain(`about "${words}"`);
    expect((await requestsFor(words))[0]).toMatchObject({ stream: true });

    // a stream longer than the attempt's 300 ms, each chunk in time, is read to its end
    const slow = marker();
    await plan(slow, [{ chunkDelayMs: 60 }]);
    const started = Date.now();
    const whole = await streamCompletion(config, ask(slow), { maxTokens: 50 }, () => {});
    expect(Date.now() - started).toBeGreaterThan(600);
    expect(whole.text).toContain('[HANDOVER]');
  });

  it('tries again after 429 and 5xx, waiting as Retry-After asks, and gives up after the last attempt', async () => {
    const recovered = marker();
    await plan(recovered, [{ status: 429, retryAfter: 1 }, { status: 502 }]);
    const started = Date.now();
    expect((await complete(config, ask(recovered), { maxTokens: 10 })).text).toContain(recovered);
    // a second as the 429 asked, then the doubled backoff of 20 ms
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(await requestsFor(recovered)).toHaveLength(3);

    const down = marker();
    await plan(down, [{ status: 503 }, { status: 500 }, { status: 503 }]);
    await expect(streamCompletion(config, ask(down), { maxTokens: 10 }, () => {})).rejects.toThrow(
      new ModelUnavailable('the model answered 503'),
    );
    expect(await requestsFor(down)).toHaveLength(3);

    const stalled = marker();
    await plan(stalled, [{ delayMs: 500 }, { delayMs: 500 }]);
    // two attempts stall past the 300 ms timeout and are dropped there; the third answers
    const before = Date.now();
    expect((await complete(config, ask(stalled), { maxTokens: 10 })).text).toContain(stalled);
    expect(Date.now() - before).toBeGreaterThanOrEqual(600);
    expect(Date.now() - before).toBeLessThan(1_000);
    expect(await requestsFor(stalled)).toHaveLength(3);

    const gaveUp = marker();
    await plan(gaveUp, [{ delayMs: 500 }, { delayMs: 500 }, { delayMs: 500 }]);
    await expect(complete(config, ask(gaveUp), { maxTokens: 10 })).rejects.toThrow(
      new ModelUnavailable('the model did not answer within 300 ms'),
    );
  });

  it('tries a whole answer again when its body stalls, but not a stream once its head is in', async () => {
    const body = marker();
    // the head at once, the body after 500 ms: the first attempt's body is given up at 300 ms
    await plan(body, [{ bodyDelayMs: 500 }]);
    expect((await complete(config, ask(body), { maxTokens: 10 })).text).toContain(body);
    expect(await requestsFor(body)).toHaveLength(2);

    const stream = marker();
    await plan(stream, [{ bodyDelayMs: 500 }]);
    await expect(streamCompletion(config, ask(stream), { maxTokens: 10 }, () => {})).rejects.toThrow(
      new ModelUnavailable('the model stopped answering for 300 ms'),
    );
    expect(await requestsFor(stream)).toHaveLength(1);
  });

  it('fails a stream that stops in the middle, keeping the words already given, and never asks again', async () => {
    const words = marker();
    await plan(words, [{ chunkDelayMs: 600 }]);
    const pieces: string[] = [];
    await expect(
      streamCompletion(config, ask(words), { maxTokens: 10 }, (piece) => void pieces.push(piece)),
    ).rejects.toThrow(new ModelUnavailable('the model stopped answering for 300 ms'));
    expect(pieces).toEqual(['Hello ']);
    expect(await requestsFor(words)).toHaveLength(1);
  });

  it('stops when the caller gives up', async () => {
    const words = marker();
    await plan(words, [{ delayMs: 250 }]);
    const caller = new AbortController();
    setTimeout(() => caller.abort(new Error('the client went away')), 50);
    await expect(complete(config, ask(words), { maxTokens: 10, signal: caller.signal })).rejects.toThrow(
      'the client went away',
    );
    expect(await requestsFor(words)).toHaveLength(1);
  });
});
