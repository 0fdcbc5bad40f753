import { decodeHTML } from 'entities/decode';
import { marked } from 'marked';
import * as xssModule from 'xss';

// `xss` is CommonJS: Node's ESM loader (the benchmarks) finds only some of its names, so take them
// from its default export, the module itself, where there is one (the Worker's bundle has both).
const { FilterXSS, getDefaultWhiteList } =
  (xssModule as unknown as { default?: typeof xssModule }).default ?? xssModule;

/** How a body is written: HTML as it is, or Markdown rendered to HTML. */
export type EditMethod = 'html' | 'markdown';

// js-xss's allow-list of tags and attributes (no scripts, styles, frames, forms or event
// handlers; `javascript:` and other unsafe URLs dropped), with what mail bodies commonly carry.
const allowed = getDefaultWhiteList();
for (const tag of ['table', 'thead', 'tbody', 'tr', 'td', 'th'])
  allowed[tag] = [...(allowed[tag] ?? []), 'colspan', 'rowspan', 'align'];

const sanitizer = new FilterXSS({
  whiteList: allowed,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'noscript', 'template'],
});
// What a language model wrote: the same, less every element that loads something by itself when
// shown (an image's address can carry what the prompt held to whoever serves it, with no click).
const modelAllowed = Object.fromEntries(
  Object.entries(allowed).filter(([tag]) => !['img', 'audio', 'video', 'source', 'track'].includes(tag)),
);
const modelSanitizer = new FilterXSS({
  whiteList: modelAllowed,
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'noscript', 'template'],
});

/**
 * A language model's Markdown as HTML a teammate may read and send: rendered, then sanitized as a
 * body is, without images or media (`docs/ai.md`, "The prompts").
 */
export function modelHtml(markdown: string): string {
  return modelSanitizer.process(marked.parse(markdown, { async: false, gfm: true, breaks: true }) as string).trim();
}

const textOnly = new FilterXSS({
  whiteList: {},
  stripIgnoreTag: true,
  stripIgnoreTagBody: ['script', 'style', 'noscript', 'template'],
});

/**
 * A thread entry's body as it is stored and sent: Markdown rendered, then every body sanitized
 * (`docs/resources/tickets.md` says what survives).
 */
export function messageHtml(body: string, editMethod: EditMethod): string {
  const html =
    editMethod === 'markdown' ? (marked.parse(body, { async: false, gfm: true, breaks: true }) as string) : body;
  return sanitizer.process(html).trim();
}

/**
 * The plain text of a stored HTML body: tags dropped, every character reference decoded as a
 * browser decodes it (named, decimal and hex: `entities`, the HTML standard's whole table), a
 * non-breaking space read as a space, whitespace collapsed.
 */
export function messageText(html: string): string {
  const spaced = html.replace(/<(br|\/p|\/div|\/li|\/tr|\/h[1-6])\b[^>]*>/gi, '\n');
  return decodeHTML(textOnly.process(spaced))
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}

/** Text as it reads inside HTML, markup taken literally. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A plain-text body as HTML: escaped, its blank-line-separated paragraphs as `<p>`, its other line breaks as `<br>`. */
export function textToHtml(text: string): string {
  return escapeHtml(text.replace(/\r\n?/g, '\n'))
    .split(/\n[ \t]*\n+/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${paragraph.replace(/\n/g, '<br>')}</p>`)
    .join('');
}
