import { defineModule } from '../../modules/module';
import { apiKeysResource } from './apikeys.resource';
import { createApiKeyRoute } from './create-api-key.route';

/** `/v2/apikeys...`: list, get and revoke (the generic routes), and the create that shows the secret once. */
export const apiKeysModule = defineModule({
  name: 'apikeys',
  resources: [apiKeysResource],
  routes: [createApiKeyRoute],
});
