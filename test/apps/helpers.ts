// Shared by the apps tests: the seeded catalogue by slug and key, the error-body check, and a
// snapshot of every row the apps endpoints can write.
import { expect } from 'vitest';
import { rows } from '../support/db';
export { expectError } from '../support/errors';

export interface ErrorEntry {
  code: string;
  source?: string;
  detail: string;
}

/** The id of a seeded app. */
export async function appId(slug: string): Promise<number> {
  const [app] = await rows<{ id: number }>(`SELECT id FROM apps WHERE slug = $1`, [slug]);
  expect(app, `seeded app ${slug}`).toBeDefined();
  return app!.id;
}

/** The id of a seeded app's setting. */
export async function settingId(slug: string, key: string): Promise<number> {
  const [setting] = await rows<{ id: number }>(
    `SELECT d.id FROM app_setting_definitions d JOIN apps a ON a.id = d.app_id WHERE a.slug = $1 AND d.key = $2`,
    [slug, key],
  );
  expect(setting, `seeded setting ${slug}.${key}`).toBeDefined();
  return setting!.id;
}

/** Every row the apps endpoints write, for the given installations: a refusal must leave it equal. */
export async function snapshot(installations: number[]) {
  const of = (table: string) =>
    rows(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE installation_id = ANY($1) ORDER BY id`, [installations]);
  return {
    installations: await of('app_installations'),
    values: await of('app_setting_values'),
    features: await of('app_feature_installations'),
  };
}
