import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../scripts/stack';
import { startWorker } from '../../scripts/worker-under-test';
import { startWorkerControls } from './worker-controls';
import { workerLogs } from './worker-logs';
import { TEST_MAIL_MAX_BYTES, TEST_MAIL_RETRY_BASE_SECONDS, TEST_PUBLIC_URL } from '../mail/limits';
import { startMailReceiver } from '../../scripts/stack/mail-sender/receiver';
import { startDnsStandIn } from '../../scripts/stack/dns-stand-in';
import { STAND_IN_MODEL, startAiModelStandIn } from '../../scripts/stack/ai-model-stand-in';

declare module 'vitest' {
  export interface ProvidedContext {
    workerUrl: string;
    databaseUrl: string;
    /** `POST /queue` puts a message on the JOBS queue; `POST /scheduled?time=` fires the cron trigger; `GET /logs?field=value` reads the Worker's log lines */
    workerControlsUrl: string;
    /** the receiver of the mail the Worker sends (`scripts/stack/mail-sender/receiver.ts`): `GET /sent?to=`, `POST /plan` */
    mailReceiverUrl: string;
    /** the DNS-over-HTTPS stand-in the Worker resolves names with (`scripts/stack/dns-stand-in.ts`): `PUT /records` */
    dnsControlUrl: string;
    /** the AI model's stand-in (`scripts/stack/ai-model-stand-in.ts`): `GET /requests?match=`, `POST /plan` */
    aiModelControlUrl: string;
    /** the Worker's bundle and the stack it uses: a test file may serve another Worker of its own with other variables */
    workerScript: string;
    stackParts: { databaseUrl: string; wsProxyPort: number; sqlHttpUrl: string };
  }
}

/** One throwaway database and one Worker in workerd for the whole run. */
export default async function setup(project: TestProject) {
  // Its own bundle folder, so runs side by side never overwrite each other's Worker.
  const outdir = path.resolve(`.wrangler/test-build-${process.pid}`);
  const stack = await startLocalStack({ purpose: 'test' });
  const logs = workerLogs();
  const mailReceiver = await startMailReceiver();
  const dns = await startDnsStandIn();
  const aiModel = await startAiModelStandIn();
  let worker;
  try {
    // mail over 256 KiB is refused: the mail tests reach the limit under the local harness's own 1 MiB
    const vars = {
      MAIL_MAX_BYTES: String(TEST_MAIL_MAX_BYTES),
      MAIL_RETRY_BASE_SECONDS: String(TEST_MAIL_RETRY_BASE_SECONDS),
      PUBLIC_URL: TEST_PUBLIC_URL,
      DNS_OVER_HTTPS_URL: dns.url,
      AI_BASE_URL: aiModel.url,
      AI_MODEL: STAND_IN_MODEL,
      AI_API_KEY: aiModel.apiKey,
      // a model that stalls is given up on in seconds, not the production minute
      AI_TIMEOUT_MS: '2000',
      AI_RETRY_BASE_MS: '50',
    };
    worker = await startWorker(stack, {
      outdir,
      onLogLine: logs.handle,
      vars,
      mailReceiverUrl: `${mailReceiver.url}/send`,
    });
  } catch (error) {
    await aiModel.stop();
    await dns.stop();
    await mailReceiver.stop();
    await stack.stop();
    throw error;
  }
  const controls = await startWorkerControls(worker.miniflare, 'JOBS', logs);
  project.provide('workerControlsUrl', controls.url);
  project.provide('workerUrl', worker.url);
  project.provide('databaseUrl', stack.databaseUrl);
  project.provide('mailReceiverUrl', mailReceiver.url);
  project.provide('dnsControlUrl', dns.controlUrl);
  project.provide('aiModelControlUrl', aiModel.controlUrl);
  project.provide('workerScript', worker.scriptPath);
  project.provide('stackParts', {
    databaseUrl: stack.databaseUrl,
    wsProxyPort: stack.wsProxyPort,
    sqlHttpUrl: stack.sqlHttpUrl,
  });
  return async () => {
    await controls.stop();
    await worker.stop();
    await mailReceiver.stop();
    await dns.stop();
    await aiModel.stop();
    await stack.stop();
    await rm(outdir, { recursive: true, force: true });
  };
}
