import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { addRoute } from '../../http/route';
import { decisionDoc, decisionHandler } from './decision';

/** `POST /v2/agentinvites/{id}/decline.json`: the owner turns the request down; the requester may ask again. */
export function declineRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    ...decisionDoc,
    method: 'post',
    path: '/v2/agentinvites/{id}/decline.json',
    summary: 'Decline a request for a seat (the owner it is addressed to)',
  }, decisionHandler('declined'));
}
