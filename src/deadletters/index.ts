import { defineModule } from '../modules/module';
import { discardDeadLetterRoute } from './discard-dead-letter.route';
import { getDeadLetterRoute } from './get-dead-letter.route';
import { listDeadLettersRoute } from './list-dead-letters.route';
import { replayDeadLetterRoute } from './replay-dead-letter.route';

/**
 * Dead letters: the queue messages whose consumer failed every delivery, stored by the consumer
 * of the dead-letter queues (`store.ts`, called by src/jobs/queue.ts) and read, replayed or
 * discarded by the service's operators (`/operator/deadletters...`, the operator token).
 */
export const deadLettersModule = defineModule({
  name: 'deadletters',
  routes: [listDeadLettersRoute, getDeadLetterRoute, replayDeadLetterRoute, discardDeadLetterRoute],
});
