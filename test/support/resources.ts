import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ResourceDeclaration } from '../../src/engine';

/** Every resource declaration: each group's `*.resource.ts` files (where `defineResource` is called, and only there). */
export async function everyResource(): Promise<ResourceDeclaration[]> {
  const root = path.resolve(__dirname, '../../src/resources');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.resource.ts'),
  );
  const exported = await Promise.all(
    files.map(async (file) => Object.values((await import(path.join(root, file))) as Record<string, unknown>)),
  );
  return exported
    .flat()
    .filter(
      (value): value is ResourceDeclaration =>
        typeof value === 'object' && value !== null && 'table' in value && 'relations' in value && 'singular' in value,
    );
}
