import type { Hono } from 'hono';
import type { AppEnv } from '../../app-env';
import { announcementsRoutes } from '../announcements';
import { currentAnnouncementRoute } from './current';

/** `/v2/announcement.json` (what a caller sees) and `/v2/announcements...` (where the owner publishes). */
export function announcementRoutes(app: Hono<AppEnv>): void {
  currentAnnouncementRoute(app);
  announcementsRoutes(app);
}
