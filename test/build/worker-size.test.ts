// The Worker stays lean (issue 35): the modules `wrangler deploy` uploads, gzipped, at most 600
// KiB. The big static files (the reference page's script, the widget) are assets
// (wrangler.toml `[assets]`, scripts/build-assets.ts), not modules: a Worker starts from its
// modules on every cold start, an asset is served from the edge without it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';

const LIMIT_BYTES = 600 * 1024;

describe('the deployed Worker', () => {
  it('uploads at most 600 KiB of modules, gzipped, and no static file among them', () => {
    // the suite's Worker is the bundle a deploy uploads (`wrangler deploy --dry-run`), in a folder of its own
    const folder = path.dirname(inject('workerScript'));
    // wrangler writes a README.md of its own there, and the source map is uploaded beside the modules, not as one
    const modules = readdirSync(folder).filter((name) => !name.endsWith('.map') && name !== 'README.md');
    expect(modules).toContain('index.js');
    expect(modules.filter((name) => name.endsWith('.js'))).toEqual(['index.js']);
    const sizes = Object.fromEntries(
      modules.map((name) => [name, gzipSync(readFileSync(path.join(folder, name))).length]),
    );
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
    expect(total, `gzipped modules: ${JSON.stringify(sizes)}`).toBeLessThanOrEqual(LIMIT_BYTES);
  });
});
