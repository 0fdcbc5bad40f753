import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A `.md` import is its text, as wrangler.toml's `[[rules]] type = "Text"` bundles it for the
  // Worker: a test that reads the modules in Node (the docs made from them) loads the same graph.
  plugins: [
    {
      name: 'markdown-as-text',
      enforce: 'pre',
      load: (id) => (id.endsWith('.md') ? `export default ${JSON.stringify(readFileSync(id, 'utf8'))};` : undefined),
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The files share one database and one Worker; each works in installations of its own.
    fileParallelism: true,
  },
});
