// Database round trips per API request, counted where they arrive: the SQL-over-HTTP stand-in
// (one HTTP request = one round trip, a batch included) and the WebSocket proxy (one connection
// = at least one round trip, in practice several: startup, auth, query, terminate).
// Requests are sent one after another so that nothing else moves the counters; their median
// latency is kept too, as the figure of a request on an idle machine.
import type { LocalStack } from '../scripts/stack';

export interface RoundTrips {
  label: string;
  requests: number;
  httpRequests: number;
  statements: number;
  batches: number;
  wsConnections: number;
  /** (HTTP requests + WebSocket connections) / API requests */
  perRequest: number;
  /** median latency of these sequential requests, ms: the request alone, without load */
  p50Ms: number;
}

/** A GET of the URL, or a request of its own. */
export type ApiCall = string | Request;

export async function countRoundTrips(
  stack: LocalStack,
  label: string,
  calls: ApiCall[],
  headers: Record<string, string> = {},
): Promise<RoundTrips> {
  const before = stack.stats();
  const latencies: number[] = [];
  for (const call of calls) {
    const request = typeof call === 'string' ? new Request(call) : call;
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    const start = performance.now();
    const response = await fetch(request);
    await response.arrayBuffer();
    latencies.push(performance.now() - start);
    if (!response.ok) throw new Error(`${label}: ${request.method} ${request.url} answered ${response.status}`);
  }
  latencies.sort((a, b) => a - b);
  // A Pool is ended in waitUntil, after the answer: its connection was counted when it opened.
  const after = stack.stats();
  const httpRequests = after.sqlHttp.requests - before.sqlHttp.requests;
  const wsConnections = after.wsProxy.connections - before.wsProxy.connections;
  return {
    label,
    requests: calls.length,
    httpRequests,
    statements: after.sqlHttp.statements - before.sqlHttp.statements,
    batches: after.sqlHttp.batches - before.sqlHttp.batches,
    wsConnections,
    perRequest: (httpRequests + wsConnections) / calls.length,
    p50Ms: latencies[Math.ceil(latencies.length / 2) - 1]!,
  };
}
