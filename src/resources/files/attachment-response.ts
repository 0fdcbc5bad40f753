/** `filename*` of RFC 6266 (any name), with a plain ASCII `filename` beside it for old clients. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Stored bytes served as a download: never sniffed, never run, never cached (an uploaded HTML page cannot script our origin). */
export function attachmentResponse(object: R2ObjectBody, contentType: string, name: string): Response {
  return new Response(object.body, {
    headers: {
      'content-type': contentType,
      'content-length': String(object.size),
      'content-disposition': contentDisposition(name),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "sandbox; default-src 'none'",
      'cache-control': 'private, no-store',
    },
  });
}
