// The Worker's `EMAIL` binding in the tests: a wrapped binding (workerd runs it in the Worker's own
// isolate, as the real binding's client runs) with Email Service's `send(builder)`: it hands each
// message to the receiver at RECEIVER_URL (`receiver.ts`, a real HTTP server the tests read) and
// answers as the service does: `{ messageId }`, or an Error with the service's `code` (an error
// thrown here keeps its properties; one thrown across an RPC boundary would lose `code`).

/** Bytes as base64, whatever form the attachment's content came in. */
function base64(content) {
  if (typeof content === 'string') return content;
  const bytes =
    content instanceof ArrayBuffer
      ? new Uint8Array(content)
      : new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export default function (env) {
  return {
    async send(message) {
      if (!message || typeof message !== 'object' || !('subject' in message)) {
        throw Object.assign(new Error('the stand-in takes only the builder form of send()'), {
          code: 'E_VALIDATION_ERROR',
        });
      }
      const attachments = (message.attachments ?? []).map((attachment) => ({
        ...attachment,
        content: base64(attachment.content),
      }));
      const response = await fetch(env.RECEIVER_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...message, attachments }),
      });
      const answer = await response.json();
      if (!response.ok) throw Object.assign(new Error(answer.message), { code: answer.code });
      return { messageId: answer.messageId };
    },
  };
}
