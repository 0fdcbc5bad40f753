import { api, type ApiRequest } from './api';
import { awaitLogLines } from './logs';

/** A request as `api()` sends it, and the round trips to the database it made (its log line's `dbRoundTrips`). */
export async function withRoundTrips(path: string, request: ApiRequest) {
  const requestId = `trips-${Math.random().toString(36).slice(2)}`;
  const answer = await api(path, { ...request, headers: { ...request.headers, 'x-request-id': requestId } });
  const [line] = await awaitLogLines({ requestId });
  return { answer, trips: line!.dbRoundTrips as number };
}
