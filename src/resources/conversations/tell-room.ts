import type { Env } from '../../app-env';
import { withDeadline } from '../../events/subscriber';

/**
 * Posts `body` to a request of the room of the conversation with this token (`/status`,
 * `/message`), giving up when `signal` aborts; fails unless the room answers 2xx. The room makes
 * each telling safe to repeat (it applies an event once).
 */
export async function tellRoom(
  env: Env,
  signal: AbortSignal,
  token: string,
  path: '/status' | '/message',
  body: unknown,
): Promise<void> {
  const stub = env.CONVERSATION_ROOMS.get(env.CONVERSATION_ROOMS.idFromName(token));
  const answer = await withDeadline(
    signal,
    stub.fetch(`https://room${path}`, { method: 'POST', body: JSON.stringify(body), signal }),
  );
  if (!answer.ok) throw new Error(`the room answered ${answer.status}`);
}
