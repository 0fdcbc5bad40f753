import { errorField, log } from '../lib/log';

/** What a request's data point tells: the same as its log line, without the request id. */
export interface RequestFacts {
  /** the route's pattern as the document writes it; null when no route matched (a 404 of an unknown path) */
  route: string | null;
  method: string;
  status: number;
  installationId: number | null;
  durationMs: number;
  dbRoundTrips: number;
}

/** `blob1` of a request no route matched: never the path itself, which may hold ids and tokens. */
export const NO_ROUTE = '(none)';

/**
 * One Workers Analytics Engine data point for the request (the `REQUEST_METRICS` binding; none
 * when it is absent, as in a local run without it). The layout is what the queries of
 * docs/operations.md read, so it only grows at the end:
 *
 * | column | value |
 * |---|---|
 * | `index1` | the installation id, '' before authentication (the sampling key: one busy installation is sampled, not the others) |
 * | `blob1` | the route pattern (`/v2/companies/{id}.json`), `(none)` when no route matched |
 * | `blob2` | the method |
 * | `blob3` | the status class (`2xx`, `4xx`, `5xx`) |
 * | `blob4` | the status code (`201`) |
 * | `blob5` | the installation id, as `index1` |
 * | `double1` | the duration in milliseconds |
 * | `double2` | the database round trips |
 *
 * Writing never fails the request: the platform queues the point and does not answer.
 */
export function writeRequestMetric(dataset: AnalyticsEngineDataset | undefined, facts: RequestFacts): void {
  if (!dataset) return;
  const installation = facts.installationId === null ? '' : String(facts.installationId);
  try {
    dataset.writeDataPoint({
      indexes: [installation],
      blobs: [
        facts.route ?? NO_ROUTE,
        facts.method.slice(0, 16),
        `${Math.floor(facts.status / 100)}xx`,
        String(facts.status),
        installation,
      ],
      doubles: [facts.durationMs, facts.dbRoundTrips],
    });
  } catch (error) {
    log('warn', 'metrics: the request data point was not written', { error: errorField(error) });
  }
}
