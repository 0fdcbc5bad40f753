// The service's Worker with one queue consumer more, for test/operability/dead-letters.test.ts
// only (bundled from this entry by `startWorker`; the service's own bundle never holds it): a
// `test.flaky` message fails its first `failures` deliveries (counted per `nonce` in the isolate),
// then succeeds and logs `test: flaky message done`. Everything else is the service, unchanged:
// its queue handler, its retries, its dead-letter consumer.
import type { Env } from '../../src/app-env';
import service from '../../src/index';
import type { JobMessage } from '../../src/jobs/job-message';
import { queueHandler } from '../../src/jobs/queue';
import { log } from '../../src/lib/log';
import { modules } from '../../src/module-list';
import { defineModule } from '../../src/modules/module';

export { ConversationRoom, RateLimiter } from '../../src/index';

const deliveries = new Map<string, number>();

const flakyModule = defineModule({
  name: 'test-flaky',
  consumers: {
    'test.flaky': async (message) => {
      const nonce = String(message.nonce);
      const delivery = (deliveries.get(nonce) ?? 0) + 1;
      deliveries.set(nonce, delivery);
      if (delivery <= Number(message.failures))
        throw new Error(`test.flaky ${nonce}: delivery ${delivery} fails on purpose`);
      log('info', 'test: flaky message done', { nonce, delivery });
    },
  },
});

export default { ...service, queue: queueHandler([...modules, flakyModule]) } satisfies ExportedHandler<
  Env,
  JobMessage
>;
