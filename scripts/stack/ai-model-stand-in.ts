// An OpenAI-compatible chat-completions endpoint for the local stack: the Worker's model port
// (`src/lib/ai-model/chat-model.ts`) talks to it as to Cloudflare AI Gateway in production, whole
// answers or server-sent events. It writes its answer from the prompt it receives (the
// customer's name and latest message, each article it was given, cited by its marker, and what the
// teammate asked for), so a test sees from the answer which articles and entries reached the
// model, and from `GET /requests` the whole prompt.
//   POST /v1/chat/completions   the model (a bearer key is required when started with one)
//   GET  /requests?match=       the request bodies it received (those whose prompt contains `match`), oldest first
//   POST /plan                  {"match": "...", "answers": [{"status": 503}, {"delayMs": 2000}, {"text": "..."}]}:
//                               the next requests whose prompt contains `match` are answered so, in order, then as usual
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body';

/** What the stand-in answers one request with, instead of its own answer. */
interface PlannedAnswer {
  /** an error status (429, 500, 503, 401...) */
  status?: number;
  /** with `status`: the `Retry-After` header, seconds */
  retryAfter?: number;
  /** waits this long before answering */
  delayMs?: number;
  /** a stream: waits this long before each chunk (2 ms when absent) */
  chunkDelayMs?: number;
  /** sends the head at once, then waits this long before the body (or a stream's first chunk) */
  bodyDelayMs?: number;
  /** this text instead of the composed one */
  text?: string;
}

interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: { role: string; content: string }[];
}

export interface AiModelStandIn {
  /** the endpoint's base, for `AI_BASE_URL` (`<url>/chat/completions` is the model) */
  url: string;
  /** where tests read requests and plan answers */
  controlUrl: string;
  /** the key it requires, for `AI_API_KEY` */
  apiKey: string;
  stop(): Promise<void>;
}

/** The model's name as the stand-in answers it. */
export const STAND_IN_MODEL = 'stand-in-1';

/** The key of local runs and tests only: never a deployed secret. */
export const STAND_IN_API_KEY = 'local-ai-key-not-for-production';

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/**
 * The answer a model following the service's prompt would give: a greeting by name, the
 * customer's latest words echoed, one sentence citing each article given, and the teammate's
 * instructions acknowledged. With no article, it says it cannot answer from the articles.
 */
export function composeAnswer(prompt: string): string {
  const customer = unescape(/<customer>([^<]*)<\/customer>/.exec(prompt)?.[1] ?? '').trim();
  const entries = [...prompt.matchAll(/<entry from="customer"[^>]*>([\s\S]*?)<\/entry>/g)];
  const latest = unescape(entries.at(-1)?.[1] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const visitor = [...prompt.matchAll(/<message from="visitor"[^>]*>([\s\S]*?)<\/message>/g)].at(-1)?.[1];
  const asked = latest || unescape(visitor ?? '').trim();
  const articles = [...prompt.matchAll(/<article id="(A\d+)" title="([^"]*)">/g)];
  const instructions = /^Teammate's instructions: (.*)$/m.exec(prompt)?.[1]?.trim();
  const lines = [`Hello ${customer || 'there'}, thank you for writing about "${asked.slice(0, 80)}".`];
  if (articles.length === 0)
    lines.push('The help articles do not answer this: a teammate will look into it. [HANDOVER]');
  for (const [, marker, title] of articles) lines.push(`${unescape(title!)} explains what to do [${marker}].`);
  if (instructions) lines.push(`(As asked: ${instructions})`);
  return lines.join('\n\n');
}

/**
 * `latencyMs`: how long every answer takes before its head, as a model thinks (the benchmark's);
 * `onChat`: called as each chat request arrives, before it is answered.
 */
export async function startAiModelStandIn(
  opts: { apiKey?: string; latencyMs?: number; onChat?: () => void } = {},
): Promise<AiModelStandIn> {
  const apiKey = opts.apiKey ?? STAND_IN_API_KEY;
  const received: { body: ChatRequest; prompt: string }[] = [];
  const plans: { match: string; answers: PlannedAnswer[] }[] = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const planFor = (prompt: string): PlannedAnswer | undefined => {
    const plan = plans.find((p) => prompt.includes(p.match) && p.answers.length > 0);
    return plan?.answers.shift();
  };

  async function answerChat(body: ChatRequest, response: ServerResponse) {
    opts.onChat?.();
    const prompt = (body.messages ?? []).map((m) => m.content).join('\n');
    received.push({ body, prompt });
    if (received.length > 500) received.shift();
    const planned = planFor(prompt);
    if (opts.latencyMs) await sleep(opts.latencyMs);
    if (planned?.delayMs) await sleep(planned.delayMs);
    if (planned?.status) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (planned.retryAfter !== undefined) headers['retry-after'] = String(planned.retryAfter);
      response.writeHead(planned.status, headers).end(JSON.stringify({ error: { message: 'planned failure' } }));
      return;
    }
    const text = planned?.text ?? composeAnswer(prompt);
    const id = `chatcmpl-${received.length}`;
    const head = async (headers: Record<string, string>) => {
      response.writeHead(200, headers);
      if (planned?.bodyDelayMs) {
        response.flushHeaders();
        await sleep(planned.bodyDelayMs);
      }
    };
    if (!body.stream) {
      await head({ 'content-type': 'application/json' });
      if (response.destroyed) return;
      response.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          model: STAND_IN_MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(text.length / 4) },
        }),
      );
      return;
    }
    await head({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // a word at a time, as a model streams
    for (const words of text.match(/\S+\s*/g) ?? []) {
      if (response.destroyed) return;
      const chunk = {
        id,
        object: 'chat.completion.chunk',
        model: STAND_IN_MODEL,
        choices: [{ delta: { content: words } }],
      };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      await sleep(planned?.chunkDelayMs ?? 2);
    }
    response.end('data: [DONE]\n\n');
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    (async () => {
      if (request.method === 'POST' && url.pathname === '/v1/chat/completions') {
        if (request.headers.authorization !== `Bearer ${apiKey}`)
          return json(401, { error: { message: 'a bearer key is required' } });
        return answerChat(JSON.parse(await readBody(request)) as ChatRequest, response);
      }
      if (request.method === 'GET' && url.pathname === '/requests') {
        const match = url.searchParams.get('match') ?? '';
        return json(
          200,
          received.filter((r) => r.prompt.includes(match)).map((r) => r.body),
        );
      }
      if (request.method === 'POST' && url.pathname === '/plan') {
        const plan = JSON.parse(await readBody(request)) as { match: string; answers: PlannedAnswer[] };
        plans.push({ match: plan.match, answers: [...plan.answers] });
        return json(200, { ok: true });
      }
      json(404, { error: 'no such path' });
    })().catch((error: unknown) => {
      if (!response.headersSent) json(400, { error: String(error) });
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/v1`,
    controlUrl: base,
    apiKey,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
