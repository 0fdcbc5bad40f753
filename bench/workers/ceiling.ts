// The ceiling: a bare Hono Worker answering a small static JSON at a route shaped like the
// service's `GET /v2/companies/{id}.json`. No database, no middleware.
import { Hono } from 'hono';

const app = new Hono();
app.get('/v2/companies/:id{[0-9]+\\.json}', (c) => {
  const id = Number(c.req.param('id').slice(0, -'.json'.length));
  return c.json({ company: { id, type: 'companies', name: `Company ${id}`, state: 'active' }, included: {} });
});

export default app;
