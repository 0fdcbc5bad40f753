import { EventSourceParserStream } from 'eventsource-parser/stream';
import { z } from 'zod';

/**
 * The AI add-on's one way to a language model: an OpenAI-compatible chat-completions endpoint
 * over `fetch` (docs/ai.md, "The model port"). In production Cloudflare AI Gateway's compatible
 * endpoint in front of Workers AI or another provider; locally and in tests the stand-in of
 * `scripts/stack/ai-model-stand-in.ts`, which speaks the same protocol.
 *
 * An attempt that answers 429 or 5xx, fails on the network, or says nothing within the attempt's
 * timeout (its head; a whole answer's body too) is tried again after a backoff (the answer's
 * `Retry-After` when it gives one, at most 10 s), up to `attempts` in all; then
 * `ModelUnavailable`. A stream is tried again only until its head arrives: after that a stall or
 * a break fails it, as words may have reached the caller and are not taken back.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ModelConfig {
  /** everything before `/chat/completions` */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** how long one attempt may wait for the answer's head (and, streaming, for each next chunk) */
  attemptTimeoutMs: number;
  attempts: number;
  /** the first backoff; each later one doubles */
  retryBaseMs: number;
}

/** The model did not answer usefully after every attempt (or is not configured): a 503 to the client. */
export class ModelUnavailable extends Error {
  constructor(
    message: string,
    /** seconds a client may wait before trying again */
    readonly retryAfterSeconds = 30,
  ) {
    super(message);
  }
}

export interface ModelEnv {
  AI_BASE_URL?: string;
  AI_MODEL?: string;
  AI_API_KEY?: string;
  AI_TIMEOUT_MS?: string;
  AI_ATTEMPTS?: string;
  AI_RETRY_BASE_MS?: string;
}

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** The port's settings from the Worker's variables; undefined when no model is configured. */
export function modelConfig(env: ModelEnv): ModelConfig | undefined {
  if (!env.AI_BASE_URL || !env.AI_MODEL) return undefined;
  return {
    baseUrl: env.AI_BASE_URL.replace(/\/+$/, ''),
    model: env.AI_MODEL,
    apiKey: env.AI_API_KEY || undefined,
    attemptTimeoutMs: positive(env.AI_TIMEOUT_MS, 30_000),
    attempts: Math.min(5, Math.floor(positive(env.AI_ATTEMPTS, 3))),
    retryBaseMs: positive(env.AI_RETRY_BASE_MS, 500),
  };
}

/** The longest wait between attempts, whatever `Retry-After` asks. */
const MAX_BACKOFF_MS = 10_000;

export interface Completion {
  text: string;
  /** the model that answered, as it names itself */
  model: string;
}

const completionAnswer = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

const streamChunk = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({ delta: z.object({ content: z.string().nullable().optional() }).optional() })),
});

interface CallOptions {
  maxTokens: number;
  temperature?: number;
  /** the caller gave up (its client went away) */
  signal?: AbortSignal;
}

/** One answer, whole: its head and its body each within the attempt's timeout, or the attempt is tried again. */
export async function complete(
  config: ModelConfig,
  messages: ChatMessage[],
  options: CallOptions,
): Promise<Completion> {
  const body = await send(config, messages, options, false, (response, signal) =>
    withTimeout(response.json(), config.attemptTimeoutMs, signal),
  );
  const parsed = completionAnswer.safeParse(body);
  if (!parsed.success) throw new ModelUnavailable('the model answered something that is not a chat completion');
  return { text: parsed.data.choices[0]!.message.content ?? '', model: parsed.data.model ?? config.model };
}

/**
 * One answer, word by word as the model writes it: `onWords` is called with each piece, and the
 * whole is answered at the end. A stream that stops answering for the attempt's timeout, or
 * breaks, after its first words fails with `ModelUnavailable` (the words given stay given).
 */
export async function streamCompletion(
  config: ModelConfig,
  messages: ChatMessage[],
  options: CallOptions,
  onWords: (words: string) => void | Promise<void>,
): Promise<Completion> {
  const response = await send(config, messages, options, true, async (answer) => answer);
  if (!response.body) throw new ModelUnavailable('the model answered no stream');
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  let text = '';
  let model = config.model;
  try {
    for (;;) {
      const next = await withTimeout(reader.read(), config.attemptTimeoutMs, options.signal);
      if (next.done) break;
      if (next.value.data === '[DONE]') break;
      const chunk = streamChunk.safeParse(safeJson(next.value.data));
      if (!chunk.success) continue;
      if (chunk.data.model) model = chunk.data.model;
      const words = chunk.data.choices[0]?.delta?.content ?? '';
      if (!words) continue;
      text += words;
      await onWords(words);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof ModelUnavailable) throw error;
    throw new ModelUnavailable(`the model's stream broke: ${(error as Error).message}`);
  }
  return { text, model };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The request, tried until an answer's head is 2xx and `read` has what it wants of it: 429, 5xx,
 * network failures and timeouts (of the head, or `read`'s `ModelUnavailable`) are tried again,
 * each attempt's connection dropped before the next.
 */
async function send<T>(
  config: ModelConfig,
  messages: ChatMessage[],
  options: CallOptions,
  stream: boolean,
  read: (response: Response, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const body = JSON.stringify({
    model: config.model,
    messages,
    max_tokens: options.maxTokens,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(stream ? { stream: true } : {}),
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  let last = 'no attempt';
  for (let attempt = 1; attempt <= config.attempts; attempt++) {
    options.signal?.throwIfAborted();
    let wait = config.retryBaseMs * 2 ** (attempt - 1);
    const connection = new AbortController();
    const callerGone = () => connection.abort(options.signal!.reason);
    options.signal?.addEventListener('abort', callerGone, { once: true });
    // the attempt's timeout is for the answer's head: a stream's body may take longer, each chunk on its own clock
    const headTimer = setTimeout(
      () => connection.abort(new DOMException('no answer in time', 'TimeoutError')),
      config.attemptTimeoutMs,
    );
    try {
      const response = await fetch(`${config.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body,
        signal: connection.signal,
      });
      clearTimeout(headTimer);
      if (response.ok) {
        try {
          return await read(response, connection.signal);
        } catch (error) {
          connection.abort();
          throw error;
        }
      }
      await response.body?.cancel().catch(() => {});
      last = `the model answered ${response.status}`;
      // a 4xx other than 429 is ours to mend (a wrong key, a model it does not have): asking again changes nothing
      if (response.status !== 429 && response.status < 500) break;
      const asked = Number(response.headers.get('retry-after'));
      if (Number.isFinite(asked) && asked > 0) wait = asked * 1000;
    } catch (error) {
      clearTimeout(headTimer);
      if (options.signal?.aborted) throw options.signal.reason;
      last =
        error instanceof ModelUnavailable
          ? error.message
          : (error as Error).name === 'TimeoutError'
            ? `the model did not answer within ${config.attemptTimeoutMs} ms`
            : `the model could not be reached: ${(error as Error).message}`;
    } finally {
      options.signal?.removeEventListener('abort', callerGone);
    }
    if (attempt < config.attempts) await sleep(Math.min(wait, MAX_BACKOFF_MS), options.signal);
  }
  throw new ModelUnavailable(last);
}

/** Waits `ms`, or fails with the reason of `signal` when it aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return withTimeout(new Promise<never>(() => {}), ms, signal).catch((error: unknown) => {
    if (error instanceof ModelUnavailable) return;
    throw error;
  });
}

/**
 * `work`, unless `ms` pass first (`ModelUnavailable`) or `signal` aborts (its reason); the timer
 * and the listener are dropped once it is settled.
 */
function withTimeout<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      finish();
    };
    const aborted = () => settle(() => reject(signal!.reason));
    const timer = setTimeout(
      () => settle(() => reject(new ModelUnavailable(`the model stopped answering for ${ms} ms`))),
      ms,
    );
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    work.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
