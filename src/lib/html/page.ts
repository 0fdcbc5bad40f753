import { escapeHtml } from './message-body';

/** The few pages the service shows a person (the OAuth consent, a chat visitor's email proof): one look. */
const STYLE = `
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f8fafc; }
  main { max-width: 460px; margin: 48px auto; padding: 28px 32px; background: #fff; border: 1px solid #e2e8f0; border-radius: 10px; }
  h1 { font-size: 20px; margin: 0 0 12px; }
  ul { padding-left: 20px; }
  label { display: block; margin: 16px 0 4px; font-weight: 600; }
  input[type=password] { width: 100%; box-sizing: border-box; padding: 8px; font: inherit; border: 1px solid #94a3b8; border-radius: 6px; }
  .buttons { display: flex; gap: 12px; margin-top: 20px; }
  button { font: inherit; padding: 8px 18px; border-radius: 6px; border: 1px solid #0f172a; cursor: pointer; }
  button[value=allow] { background: #0f172a; color: #fff; }
  button[value=deny] { background: #fff; color: #0f172a; }
  button.primary { background: #0f172a; color: #fff; }
  .problem { color: #b91c1c; }
  .who { color: #475569; }
`;

/** A whole page: `title`, and `content` (HTML the caller escaped). */
export function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

/** Headers of every such page: never framed (clickjacking), never cached, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
};
