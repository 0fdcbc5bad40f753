import { defineModule } from '../../modules/module';

/** Files: only as other resources include them (file-shape.ts); uploads come with the tickets work. */
export const filesModule = defineModule({ name: 'files' });
