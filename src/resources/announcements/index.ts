import { defineModule } from '../../modules/module';
import { announcementsResource } from './announcements.resource';

/** `/v2/announcements...`: the owner publishes, edits and withdraws (deletes) announcements. */
export const announcementsModule = defineModule({ name: 'announcements', resources: [announcementsResource] });
