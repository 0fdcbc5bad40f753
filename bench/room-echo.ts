// Starts the room benchmark's baseline, the bare echo room (bench/room-echo-worker.ts): bundled by
// wrangler as a deploy would, with the compatibility date and flags of wrangler.toml and one
// Durable Object binding, and served by a Miniflare (workerd) of its own on 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { quietWranglerEnv } from '../scripts/worker-vars';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildRoot = path.join(root, '.wrangler', 'bench-build');

export interface EchoRoom {
  /** `ws://127.0.0.1:<port>/rooms/<name>`: the room's address */
  socketUrl(name: string): string;
  stop(): Promise<void>;
}

/** The echo Worker's wrangler configuration, written next to its build (nothing to keep in the repository). */
function writeConfig(): string {
  const service = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml')).workerOptions;
  const dir = path.join(buildRoot, 'room-echo-config');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'wrangler.toml');
  writeFileSync(
    file,
    [
      'name = "bench-room-echo"',
      `main = ${JSON.stringify(path.join(root, 'bench', 'room-echo-worker.ts'))}`,
      `compatibility_date = ${JSON.stringify(service.compatibilityDate)}`,
      `compatibility_flags = ${JSON.stringify(service.compatibilityFlags ?? [])}`,
      '',
      '[[durable_objects.bindings]]',
      'name = "ECHO_ROOMS"',
      'class_name = "EchoRoom"',
      '',
      '[[migrations]]',
      'tag = "v1"',
      'new_sqlite_classes = ["EchoRoom"]',
      '',
    ].join('\n'),
  );
  return file;
}

export async function startEchoRoom(): Promise<EchoRoom> {
  const configPath = writeConfig();
  const outdir = path.join(buildRoot, 'room-echo');
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, '--config', configPath], {
    cwd: root,
    env: { ...process.env, ...quietWranglerEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const miniflare = new Miniflare({
    ...(workerOptions as object),
    name: 'bench-room-echo',
    modules: true,
    scriptPath: path.join(outdir, 'room-echo-worker.js'),
    host: '127.0.0.1',
    port: 0,
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = (await miniflare.ready).toString().replace(/\/$/, '').replace(/^http/, 'ws');
  return { socketUrl: (name) => `${url}/rooms/${name}`, stop: () => miniflare.dispose() };
}
