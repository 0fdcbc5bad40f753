import { messageText } from '../../lib/html/message-body';

/**
 * A reply's quoted history cut off for the thread view (the message whole stays downloadable,
 * `original.eml`): what mail clients put before the text they quote. HTML: Gmail's
 * `gmail_quote`, Apple Mail's and Thunderbird's `<blockquote type="cite">` and
 * `moz-cite-prefix`, Outlook's `divRplyFwdMsg` / `appendonsend` / separator, Yahoo's
 * `yahoo_quoted`. Text: an "On ... wrote:" line, an "-----Original Message-----" line, or the
 * `>` lines that end it. Nothing is cut when nothing would be left.
 */
const HTML_MARKERS = [
  /<div[^>]*\bclass="[^"]*\bgmail_quote\b/i,
  /<blockquote[^>]*\btype="cite"/i,
  /<div[^>]*\bclass="[^"]*\bmoz-cite-prefix\b/i,
  /<div[^>]*\bid="(divRplyFwdMsg|appendonsend)"/i,
  /<div[^>]*\bclass="[^"]*\byahoo_quoted\b/i,
  /<hr[^>]*\bid="stopSpelling"/i,
  /-{5}\s*Original Message\s*-{5}/i,
];

const TEXT_MARKERS = [
  /^On .{3,300} wrote:\s*$/m,
  /^-{5}\s*Original Message\s*-{5}\s*$/m,
  /^Le .{3,300} a écrit\s*:\s*$/m,
  /^Am .{3,300} schrieb .{0,200}:\s*$/m,
];

const hasText = (html: string) => messageText(html).trim() !== '';

/** The HTML of a reply without the history it quotes. */
export function withoutQuotedHtml(html: string): string {
  const cuts = HTML_MARKERS.map((marker) => html.search(marker)).filter((index) => index > 0);
  if (cuts.length === 0) return html;
  const kept = html.slice(0, Math.min(...cuts));
  return hasText(kept) ? kept : html;
}

/** The text of a reply without the history it quotes: cut at an attribution line, or the quoted (`>`) lines at its end. */
export function withoutQuotedText(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n');
  const cuts = TEXT_MARKERS.map((marker) => normalized.search(marker)).filter((index) => index > 0);
  let kept = cuts.length ? normalized.slice(0, Math.min(...cuts)) : normalized;
  const lines = kept.split('\n');
  while (lines.length && (/^\s*>/.test(lines.at(-1)!) || lines.at(-1)!.trim() === '')) lines.pop();
  kept = lines.join('\n');
  return kept.trim() ? kept : normalized;
}
