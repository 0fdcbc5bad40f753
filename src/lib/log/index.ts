import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Structured logs: one JSON object a line, so a log drain can filter and count them. Never a
 * secret or a body: callers pass identifiers, counts and outcomes.
 */
export type LogLevel = 'info' | 'warn' | 'error';

export type LogFields = Record<string, unknown>;

/**
 * An error as a log field: its kind, message, SQLSTATE when it has one, and where it was thrown.
 * A failed query is logged by the database's own error, without the statement's parameters
 * (values a client sent); the stack starts below the message for the same reason.
 */
export function errorField(error: unknown): LogFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const failedQuery = error.message.startsWith('Failed query') && error.cause instanceof Error;
  const shown = failedQuery ? (error.cause as Error) : error;
  const code = (shown as { code?: unknown }).code;
  return {
    name: shown.name,
    message: failedQuery ? `a query failed: ${shown.message}` : shown.message,
    ...(typeof code === 'string' ? { code } : {}),
    stack: error.stack
      ?.split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .join('\n'),
  };
}

/** What every line logged within the current request carries (its id), wherever it is logged from. */
const context = new AsyncLocalStorage<LogFields>();

/** Runs `work` with `fields` on every line it logs, through every await and `waitUntil` it starts. */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return context.run(fields, work);
}

export function log(level: LogLevel, message: string, fields: LogFields = {}): void {
  const line = JSON.stringify({ level, message, ...context.getStore(), ...fields });
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.log(line);
}
