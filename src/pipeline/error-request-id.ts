/**
 * An error body with the request's id beside its errors (`{"errors": [...], "requestId": "..."}`),
 * so a report of it names the request the logs know it by, whichever piece answered (a route's
 * 4xx, the validation of its input, authentication, the error handler). Any other answer is left
 * as it is, as are bodies that are not the error body (OAuth's own `{"error": ...}`).
 */
export async function withRequestId(response: Response, requestId: string): Promise<Response> {
  if (response.status < 400 || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return response;
  }
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { errors?: unknown }).errors))
    return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, requestId }), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
