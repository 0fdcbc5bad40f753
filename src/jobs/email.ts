import type { Env } from '../app-env';
import type { Module } from '../modules/module';

/** The Worker's `email()` handler: the one module that receives mail takes every message. */
export function emailHandler(modules: readonly Module[]) {
  const receivers = modules.filter((module) => module.email);
  if (receivers.length !== 1) throw new Error(`one module receives mail, not ${receivers.length}`);
  const receive = receivers[0]!.email!;
  return (message: ForwardableEmailMessage, env: Env, ctx: ExecutionContext): Promise<void> =>
    receive(message, env, ctx);
}
