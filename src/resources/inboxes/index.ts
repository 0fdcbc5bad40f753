import { defineModule } from '../../modules/module';
import { inboxesResource } from './inboxes.resource';

/** `/v2/inboxes...`: the generic routes; members (`users` with `meta.access`) and ticket types are written inline. */
export const inboxesModule = defineModule({ name: 'inboxes', resources: [inboxesResource] });
