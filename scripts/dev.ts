// `npm run dev`: the whole service on this machine. Postgres (embedded unless DATABASE_URL is
// set) with the migrations, the Neon driver's local proxies, a demo installation, and
// `wrangler dev` on http://127.0.0.1:8787. Ctrl-C stops everything it started.
import { spawn } from 'node:child_process';
import pg from 'pg';
import { ensureDemoContent } from './demo-content';
import { createInstallation, addApiKey } from './seed';
import { startLocalStack } from './stack';
import { startDnsStandIn } from './stack/dns-stand-in';
import { STAND_IN_MODEL, startAiModelStandIn } from './stack/ai-model-stand-in';
import { quietWranglerEnv, workerVars } from './worker-vars';

const PORT = Number(process.env.PORT ?? 8787);
/** The cron trigger of wrangler.toml. */
const CRON = '*/5 * * * *';
const CRON_EVERY_MS = 5 * 60_000;

/** The demo installation, made on the first start; answers the owner's key when this start knows it. */
async function ensureDemoInstallation(databaseUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const given = process.env.HELPDESK_DEV_API_KEY;
    const { rows } = await client.query(
      `SELECT i.id, u.id AS owner_id FROM installations i JOIN users u ON u.installation_id = i.id AND u.role = 'owner' WHERE i.site_name = 'demo' ORDER BY u.id LIMIT 1`,
    );
    if (rows.length === 0) {
      const demo = await createInstallation(client, 'demo', given);
      // the AI add-on, so the demo form's assistant and AI drafts answer (the stand-in model costs nothing)
      await client.query('UPDATE installations SET ai_allowance = 1000 WHERE id = $1', [demo.id]);
      console.log(
        `\nDemo installation created. Owner API key (shown once${given ? ', from HELPDESK_DEV_API_KEY' : ''}):\n\n    ${demo.users.owner.apiKey}\n`,
      );
      return demo.users.owner.apiKey;
    } else if (given) {
      await addApiKey(client, rows[0].id, rows[0].owner_id, given);
      console.log('\nDemo installation ready; HELPDESK_DEV_API_KEY works as the owner key.\n');
      return given;
    } else {
      console.log('\nDemo installation ready; its owner key was printed when it was first created.');
      console.log('Set HELPDESK_DEV_API_KEY to choose a key, or delete .data/postgres-dev to start afresh.\n');
    }
    return undefined;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const stack = await startLocalStack({ purpose: 'dev' });
  const ownerKey = await ensureDemoInstallation(stack.databaseUrl);
  // names resolve through a local stand-in, where a mail domain's TXT record can be set by hand
  const dns = await startDnsStandIn();
  // the AI add-on's model: a stand-in speaking the chat-completions protocol, unless AI_BASE_URL names a real one
  const aiModel = process.env.AI_BASE_URL ? undefined : await startAiModelStandIn();
  const ai = aiModel
    ? { AI_BASE_URL: aiModel.url, AI_MODEL: STAND_IN_MODEL, AI_API_KEY: aiModel.apiKey }
    : {
        AI_BASE_URL: process.env.AI_BASE_URL!,
        AI_MODEL: process.env.AI_MODEL ?? '',
        AI_API_KEY: process.env.AI_API_KEY ?? '',
      };

  const vars = Object.entries({ ...workerVars(stack), DNS_OVER_HTTPS_URL: dns.url, ...ai }).flatMap(([key, value]) => [
    '--var',
    `${key}:${value}`,
  ]);
  const wrangler = spawn('npx', ['wrangler', 'dev', '--ip', '127.0.0.1', '--port', String(PORT), ...vars], {
    stdio: 'inherit',
    env: { ...process.env, ...quietWranglerEnv },
    detached: true,
  });

  // wrangler dev does not fire cron triggers by itself: fire them on their schedule, as Cloudflare would.
  const cronTimer = setInterval(() => {
    fetch(`http://127.0.0.1:${PORT}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(CRON)}`).catch(() => {});
  }, CRON_EVERY_MS);

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    clearInterval(cronTimer);
    if (wrangler.exitCode === null && wrangler.pid) {
      try {
        process.kill(-wrangler.pid, 'SIGTERM');
      } catch {}
    }
    await dns.stop().catch((e) => console.error(e));
    await aiModel?.stop().catch((e) => console.error(e));
    await stack.stop().catch((e) => console.error(e));
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  wrangler.on('exit', (code) => void stop(code ?? 0));
  console.log(`Serving on http://127.0.0.1:${PORT}  (API reference: http://127.0.0.1:${PORT}/v2/docs)`);
  if (stack.databaseRttMs)
    console.log(
      `The database is ${stack.databaseRttMs} ms away (HELPDESK_DB_RTT_MS): every exchange with it pays that round trip.`,
    );
  console.log(
    `DNS records for mail domains: PUT ${dns.controlUrl}/records {"name", "type": "TXT", "values": [...]} (docs/resources/maildomains.md)`,
  );
  if (ownerKey) await showDemoContent(`http://127.0.0.1:${PORT}`, ownerKey);
}

/** Once the Worker answers: the demo's contact form and help article (`demo-content.ts`), and where to try them. */
async function showDemoContent(url: string, ownerKey: string): Promise<void> {
  for (let tries = 0; tries < 120; tries++) {
    if (
      await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    const demo = await ensureDemoContent(url, ownerKey, 'demo');
    console.log(
      `Chat widget: ${url}/widget/demo.html?form=${demo.formToken}  (help article: ${url}${demo.articlePath})`,
    );
  } catch (error) {
    console.error(`The demo's contact form and help article could not be made: ${(error as Error).message}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
