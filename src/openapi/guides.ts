import conventions from '../../docs/api-conventions.md';
import events from '../../docs/events.md';
import oauth from '../../docs/oauth.md';
import realtime from '../../docs/realtime.md';
import walkthrough from '../../docs/tickets.md';
import widget from '../../docs/widget.md';

/**
 * The pages of docs/ a reader of the reference needs beside the operations, in reading order: a
 * ticket's life with curl, the wire's conventions, events and webhooks, chat and its rooms, the
 * widget, OAuth apps. The reference shows them as its introduction (Scalar lists their headings in
 * its sidebar), so they are reachable from it and are the same text as the repository's.
 */
const GUIDES: readonly string[] = [walkthrough, conventions, events, realtime, widget, oauth];

/** An image of a page: its file sits beside the page in the repository, not beside the reference. */
const IMAGE_LINE = /^!\[[^\]]*\]\([^)]*\)\n?/gm;

/** The guides as one Markdown text, each page under its own title. */
export function guides(): string {
  return GUIDES.map((page) => page.replace(IMAGE_LINE, '').trim()).join('\n\n');
}
