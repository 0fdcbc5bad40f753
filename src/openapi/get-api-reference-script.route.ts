import { defineRoute } from '../http/route';
import { SCALAR_PATH } from './scalar-version';

export const getApiReferenceScriptRoute = defineRoute(
  {
    method: 'get',
    path: SCALAR_PATH,
    tag: 'Service',
    operationId: 'getApiReferenceScript',
    public: true,
    summary: "The API reference page's script (Scalar)",
    description:
      'The script of the API reference page (`/v2/docs`), Scalar at the version its address names: a new version is a new address, so the script is cached for a year as immutable. A static asset, served from the edge with an `ETag` (a 304 for a matching If-None-Match); another method than GET or HEAD is answered 405 by the edge, without the error body. See docs/architecture.md.',
    'x-static-asset': true,
    responses: {
      200: { description: 'the script', content: { 'text/javascript': { schema: { type: 'string' } } } },
      304: { description: 'not modified since the ETag sent in If-None-Match' },
    },
  },
  (c) => c.env.ASSETS.fetch(c.req.raw),
);
