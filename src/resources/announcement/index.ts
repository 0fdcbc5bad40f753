import { defineModule } from '../../modules/module';
import { getCurrentAnnouncementRoute } from './get-current-announcement.route';

/** `GET /v2/announcement.json`: what a caller sees (the owner publishes through `/v2/announcements...`). */
export const announcementModule = defineModule({ name: 'announcement', routes: [getCurrentAnnouncementRoute] });
