import type { Env } from '../../app-env';

/** Tells a conversation's room its new status, so a closed conversation stops taking messages at once. */
export async function tellRoomStatus(env: Env, record: Record<string, unknown>): Promise<void> {
  const token = record.token as string;
  const stub = env.CONVERSATION_ROOMS.get(env.CONVERSATION_ROOMS.idFromName(token));
  await stub.fetch('https://room/status', { method: 'POST', body: JSON.stringify({ status: record.status }) });
}
