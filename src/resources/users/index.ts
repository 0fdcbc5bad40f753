import { defineModule } from '../../modules/module';

/** Teammates: only as other resources include them (user-shape.ts); their own endpoints come with the teammates work. */
export const usersModule = defineModule({ name: 'users' });
