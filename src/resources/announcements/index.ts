import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { resourceRoutes } from '../engine/routes';
import { announcementsResource } from './announcements.resource';

/** `/v2/announcements...`: the owner publishes, edits and withdraws (deletes) announcements. */
export function announcementsRoutes(app: Hono<AppEnv>): void {
  resourceRoutes(app, announcementsResource);
}
