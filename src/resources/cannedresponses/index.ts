import { defineModule } from '../../modules/module';
import { cannedResponsesResource } from './cannedresponses.resource';

/** `/v2/cannedresponses...`: the generic CRUD routes (the spec has no bulk operations for them). */
export const cannedResponsesModule = defineModule({ name: 'cannedresponses', resources: [cannedResponsesResource] });
