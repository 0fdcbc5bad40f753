import type { Hono } from 'hono';
import type { AppEnv } from '../app-env';

/** The chat widget's script and demo page: public, served by the Worker (docs/widget.md). */
export function widgetRoutes(_app: Hono<AppEnv>): void {}
