/** How much of a refused body is still read (and dropped), as a multiple of the limit. */
const DRAIN_FACTOR = 4;

/**
 * A request body's bytes, refusing as soon as they pass `maxBytes`, whether or not the request
 * declared its length: a client cannot make the Worker buffer more than the limit.
 */
export async function readBodyBytes(request: Request, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    if (declared <= maxBytes * DRAIN_FACTOR) await drain(request.body?.getReader(), maxBytes * DRAIN_FACTOR);
    throw tooLarge();
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await drain(reader, maxBytes * DRAIN_FACTOR - size);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads and drops the rest of a refused body, up to `budget` bytes, so that a client still
 * sending it gets to read the 413 instead of a reset connection; past the budget it is cut off.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, budget: number): Promise<void> {
  if (!reader) return;
  let left = budget;
  while (left > 0) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  await reader.cancel();
}

/**
 * A request answered without its body being read (a 404, a refused credential, a refusal before
 * the body): the body is read to its end and dropped before the answer leaves, up to `budget`
 * bytes, so that the client's connection is left fit for its next request rather than reset under
 * it (a keep-alive connection whose request was not read to its end cannot carry another).
 */
export async function discardUnreadBody(request: Request, budget: number): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  if (Number(request.headers.get('content-length') ?? 0) > budget) return;
  await drain(request.body.getReader(), budget).catch(() => undefined);
}
