import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { addRoute } from '../../http/route';
import { decisionDoc, decisionHandler } from './decision';

/** `POST /v2/agentinvites/{id}/accept.json`: the owner gives the requester a seat (collaborator becomes agent). */
export function acceptRoute(app: Hono<AppEnv>): void {
  addRoute(app, {
    ...decisionDoc,
    method: 'post',
    path: '/v2/agentinvites/{id}/accept.json',
    summary: 'Accept a request for a seat (the owner it is addressed to)',
  }, decisionHandler('accepted'));
}
