import { registry } from './registry';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** A human page over the same registry as the OpenAPI document: one table per group. */
export function docsPage(): string {
  const groups = new Map<string, typeof registry>();
  for (const route of registry) groups.set(route.tag, [...(groups.get(route.tag) ?? []), route]);
  const sections = [...groups].map(([tag, routes]) => {
    const rows = routes
      .map((r) => {
        const query = (r.query ?? []).map((q) => `<code>${escape(q.name)}</code>: ${escape(q.description)}`).join('<br>');
        const statuses = Object.keys(r.responses).join(', ');
        return `<tr><td><b>${r.method.toUpperCase()}</b></td><td><code>${escape(r.path)}</code>${r.public ? ' <i>(public)</i>' : ''}</td><td>${escape(r.summary)}</td><td>${query}</td><td>${statuses}</td></tr>`;
      })
      .join('\n');
    return `<h2 id="${escape(tag)}">${escape(tag)}</h2><table><tr><th>method</th><th>path</th><th>what</th><th>query</th><th>answers</th></tr>${rows}</table>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>Helpdesk API v2</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:80rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem .5rem;vertical-align:top;text-align:left;font-size:.9rem}code{font-size:.85rem}</style></head>
<body><h1>Helpdesk API v2</h1>
<p>Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code> or Basic with the key as user name.
The machine-readable contract is <a href="/v2/openapi.json">/v2/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
</body></html>`;
}
