// The Worker's static assets (wrangler.toml `[assets]`, run by its `[build]` before every `wrangler
// dev` and `wrangler deploy`, the tests' dry-run bundles included): files Cloudflare serves from its
// edge cache without running the Worker, and that the Worker's bundle therefore does not carry.
//
//   dist/assets/widget.js                   the chat widget, built from src/widget/browser/
//   dist/assets/v2/docs/scalar-VERSION.js   the API reference page's script, @scalar/api-reference's browser bundle
//   dist/assets/_headers                    their caching (docs/architecture.md, "Static assets")
//
// Each file is written only when its content changed, through a rename: a Worker already serving
// the folder (a test suite builds while another part of it runs) never reads half a file.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { SCALAR_PATH, SCALAR_VERSION } from '../src/openapi/scalar-version';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ASSETS_DIRECTORY = path.join(root, 'dist/assets');

/**
 * Customers embed one unversioned address, so a copy is reused for five minutes and then
 * revalidated (a 304 with the ETag): a deploy reaches every site within minutes. Scalar's address
 * names its version, so its script is cached for a year as immutable.
 */
const HEADERS = `/widget.js
  Cache-Control: public, max-age=300
${SCALAR_PATH}
  Cache-Control: public, max-age=31536000, immutable
`;

function writeIfChanged(relative: string, content: string | Uint8Array): void {
  const file = path.join(ASSETS_DIRECTORY, relative);
  try {
    if (readFileSync(file).equals(Buffer.from(content))) return;
  } catch {
    // not there yet
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomUUID()}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}

function scalarScript(): string {
  const scalarRoot = path.join(root, 'node_modules/@scalar/api-reference');
  const installed = (JSON.parse(readFileSync(path.join(scalarRoot, 'package.json'), 'utf8')) as { version: string })
    .version;
  if (installed !== SCALAR_VERSION) {
    throw new Error(
      `@scalar/api-reference ${installed} is installed, src/openapi/scalar-version.ts names ${SCALAR_VERSION}: make them agree`,
    );
  }
  return readFileSync(path.join(scalarRoot, 'dist/browser/standalone.js'), 'utf8');
}

function widgetScript(): Uint8Array {
  const { outputFiles } = buildSync({
    entryPoints: [path.join(root, 'src/widget/browser/widget.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2017',
    write: false,
    legalComments: 'none',
    banner: {
      js: '/* Helpdesk chat widget. Embed: <script src="https://HOST/widget.js" data-form-token="FORM_TOKEN" async></script> */',
    },
  });
  return outputFiles[0]!.contents;
}

function buildAssets(): void {
  writeIfChanged('widget.js', widgetScript());
  writeIfChanged(SCALAR_PATH.slice(1), scalarScript());
  // an earlier version's script is gone with its version
  const scalarFolder = path.join(ASSETS_DIRECTORY, path.dirname(SCALAR_PATH));
  for (const name of readdirSync(scalarFolder))
    if (/^scalar-.*\.js$/.test(name) && name !== path.basename(SCALAR_PATH)) rmSync(path.join(scalarFolder, name));
  writeIfChanged('_headers', HEADERS);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildAssets();
