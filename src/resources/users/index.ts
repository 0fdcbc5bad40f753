import { defineModule } from '../../modules/module';
import { getMeRoute } from './get-me.route';
import { usersResource } from './users.resource';

/** `/v2/users...` and `/v2/me.json`: teammates, with who may add, change and deactivate them in `teammate-rules.ts`. */
export const usersModule = defineModule({ name: 'users', resources: [usersResource], routes: [getMeRoute] });
