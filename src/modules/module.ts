import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Env } from '../app-env';
import type { Subscriber } from '../events/subscriber';
import type { ApiRoute } from '../http/route';
import type { JobMessage } from '../jobs/job-message';
import { resourceRoutes, type ResourceDeclaration } from '../engine';

/** Work a queue message of one kind asks for. Safe to run twice: the queue may deliver a message again. */
export type JobConsumer = (message: JobMessage, env: Env) => Promise<void>;

/** Work the cron trigger runs, as if at `at`. */
export type ScheduledTask = (env: Env, at: Date) => Promise<void>;

/** What takes a message Email Routing hands to the Worker (one module has it). */
export type MailReceiver = (
  message: ForwardableEmailMessage,
  env: Env,
  ctx: Pick<ExecutionContext, 'waitUntil'>,
) => Promise<void>;

/**
 * A resource group, whole: its routes (the generic ones of its resource declarations, and its
 * special operations), its queue consumers by message kind, its cron tasks, and its event
 * subscribers. The app, the queue consumer and the scheduled handler walk one list of these
 * (`src/module-list.ts`).
 */
export interface Module {
  name: string;
  routes: ApiRoute[];
  /** app-level middleware by path, ahead of every route (a CORS preflight has no route of its own) */
  middleware: { path: string; handler: MiddlewareHandler<AppEnv> }[];
  consumers: Record<string, JobConsumer>;
  cron: Record<string, ScheduledTask>;
  subscribers: Subscriber[];
  /** the `email()` handler's work, for the one module that receives mail */
  email?: MailReceiver;
}

/** A module from its parts; `resources` are declarations, turned into their generic routes here. */
export function defineModule(
  parts: Partial<Omit<Module, 'name'>> & { name: string; resources?: ResourceDeclaration[] },
): Module {
  return {
    name: parts.name,
    routes: [...(parts.resources ?? []).flatMap(resourceRoutes), ...(parts.routes ?? [])],
    middleware: parts.middleware ?? [],
    consumers: parts.consumers ?? {},
    cron: parts.cron ?? {},
    subscribers: parts.subscribers ?? [],
    ...(parts.email ? { email: parts.email } : {}),
  };
}
