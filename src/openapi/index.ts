import { defineModule } from '../modules/module';
import { getApiReferenceScriptRoute } from './get-api-reference-script.route';
import { getApiReferenceRoute } from './get-api-reference.route';
import { getOpenApiDocumentRoute } from './get-open-api-document.route';

/** The contract, for machines and for people: `/v2/openapi.json` and `/v2/docs`. */
export const openApiModule = defineModule({
  name: 'openapi',
  routes: [getOpenApiDocumentRoute, getApiReferenceRoute, getApiReferenceScriptRoute],
});
