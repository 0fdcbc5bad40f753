import { defineModule } from '../modules/module';
import { getRateLimitRoute } from './get-rate-limit.route';
import { setRateLimitRoute } from './set-rate-limit.route';

/**
 * Rate limits: each teammate's requests a minute (`middleware.ts`, mounted on every authenticated
 * route by `pipeline/mount.ts`), counted by a Durable Object per installation (`limiter.ts`), and the
 * installation's setting (`/v2/ratelimit.json`).
 */
export const rateLimitModule = defineModule({ name: 'ratelimit', routes: [getRateLimitRoute, setRateLimitRoute] });
