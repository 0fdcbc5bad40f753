import { defineModule } from '../../modules/module';

/** Inboxes: only as other resources include them (inbox-shape.ts); their own endpoints come with the inboxes work. */
export const inboxesModule = defineModule({ name: 'inboxes' });
