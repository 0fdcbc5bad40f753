/**
 * What the Worker under test logs, kept for the tests to read (`GET /logs` of the worker
 * controls) rather than printed: one JSON line per request would drown the test output. Lines
 * that are not the Worker's JSON, and JSON lines of level warn or error, are still printed
 * (HELPDESK_TEST_LOGS=1 prints everything).
 */
const MAX_LINES = 50_000;

export interface WorkerLogs {
  handle(line: string, stream: 'stdout' | 'stderr'): void;
  /** The JSON log lines that have every given field with the given value. */
  matching(fields: Record<string, string>): Record<string, unknown>[];
}

/** `expected`: warnings and errors a test causes on purpose, kept but not printed. */
export function workerLogs(options: { expected?: (line: Record<string, unknown>) => boolean } = {}): WorkerLogs {
  const lines: Record<string, unknown>[] = [];
  const everything = process.env.HELPDESK_TEST_LOGS === '1';
  return {
    handle(line, stream) {
      let parsed: Record<string, unknown> | undefined;
      try {
        const value: unknown = JSON.parse(line);
        if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as Record<string, unknown>;
      } catch {
        parsed = undefined;
      }
      if (parsed) {
        lines.push(parsed);
        if (lines.length > MAX_LINES) lines.splice(0, lines.length - MAX_LINES);
      }
      if (
        everything ||
        !parsed ||
        ((parsed.level === 'warn' || parsed.level === 'error') && !options.expected?.(parsed))
      ) {
        (stream === 'stderr' ? process.stderr : process.stdout).write(`[worker] ${line}\n`);
      }
    },
    matching(fields) {
      return lines.filter((line) => Object.entries(fields).every(([name, value]) => String(line[name]) === value));
    },
  };
}
