// `npm run clients`: the typed TypeScript client's types (clients/typescript/schema.ts) and the
// Postman collection (clients/postman/helpdesk.postman_collection.json), made from the OpenAPI
// document the Worker serves at GET /v2/openapi.json. The Worker is bundled and served as the
// tests serve it (scripts/worker-under-test.ts), with no database: the document needs none.
// `npm run clients -- --check` writes nothing and exits 1 when a committed file is not current.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderClients, REGENERATE, type OpenApiDocument } from './clients/render';
import { startWorker } from './worker-under-test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Nothing listens here: a request that reached for the database would fail, and none does. */
const NO_DATABASE = {
  databaseUrl: 'postgres://nobody@127.0.0.1:9/none',
  wsProxyPort: 9,
  sqlHttpUrl: 'http://127.0.0.1:9/sql',
};

/** The document as the Worker serves it, from a bundle built into a folder of its own. */
export async function fetchServedDocument(): Promise<OpenApiDocument> {
  const outdir = path.join(root, `.wrangler/clients-build-${process.pid}`);
  try {
    const worker = await startWorker(NO_DATABASE, { outdir });
    try {
      const response = await fetch(`${worker.url}/v2/openapi.json`);
      if (response.status !== 200)
        throw new Error(`GET /v2/openapi.json answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as OpenApiDocument;
    } finally {
      await worker.stop();
    }
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const files = await renderClients(await fetchServedDocument());
  const stale: string[] = [];
  for (const [file, contents] of Object.entries(files)) {
    const target = path.join(root, file);
    const committed = await readFile(target, 'utf8').catch(() => undefined);
    if (committed === contents) {
      console.log(`${file}: current`);
      continue;
    }
    stale.push(file);
    if (check) {
      console.log(`${file}: not current`);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, contents);
    console.log(`${file}: written (${contents.length} characters)`);
  }
  if (check && stale.length) {
    console.error(`Not what the routes make now: ${stale.join(', ')}. Run \`${REGENERATE}\` and commit the result.`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
