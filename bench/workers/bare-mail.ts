// The mail benchmark's baseline: an email() handler that only parses each message with
// postal-mime, as the service's handler does first (src/resources/mail/receive.ts), and keeps
// nothing.
import PostalMime from 'postal-mime';

export default {
  async fetch(): Promise<Response> {
    return new Response('not found', { status: 404 });
  },
  async email(message: ForwardableEmailMessage): Promise<void> {
    const raw = new Uint8Array(await new Response(message.raw).arrayBuffer());
    const parsed = await PostalMime.parse(raw, { maxNestingDepth: 50, maxHeadersSize: 1024 * 1024 });
    if (!parsed.from) message.setReject('no sender');
  },
} satisfies ExportedHandler;
