import { defineModule } from '../../modules/module';
import { spamListsResource } from './spamlists.resource';

/** `/v2/spamlists...`: the generic routes, bulk update and bulk delete by filter included. */
export const spamListsModule = defineModule({ name: 'spamlists', resources: [spamListsResource] });
