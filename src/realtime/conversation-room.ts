import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../app-env';

/**
 * One realtime room per conversation, addressed by its token. Declared now so the binding
 * exists from the first deploy; the room's messaging arrives with the conversations work.
 */
export class ConversationRoom extends DurableObject<Env> {
  override async fetch(): Promise<Response> {
    return Response.json({ errors: [{ code: 'notFound', detail: 'conversation rooms are not open yet' }] }, { status: 404 });
  }
}
