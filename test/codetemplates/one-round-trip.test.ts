// A code template's sentiment is set in one exchange with the database (one HTTP batch, no
// WebSocket connection): the template checked, the row upserted with its event, and read back; a
// template that is not the caller's answers its 404 from that exchange, nothing written
// (docs/connection-strategy.md).
import { beforeAll, describe, expect, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { eventsOf } from '../support/events';
import { withRoundTrips } from '../support/round-trips';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

async function newTemplate(installationId: number): Promise<number> {
  const [row] = await rows<{ id: number }>(
    `INSERT INTO code_templates (installation_id, name, body) VALUES ($1, 'Template', 'Hi') RETURNING id`,
    [installationId],
  );
  return row!.id;
}

const sentiments = () =>
  rows(`SELECT to_jsonb(s) AS row FROM code_template_sentiments s WHERE installation_id = ANY($1) ORDER BY id`, [
    [site.id, other.id],
  ]);

/** The PATCH's round trips, the caller's credential looked up just before (remembered: the count is the write alone). */
async function patch(id: number, body: unknown) {
  await api('/v2/anomalies.json', { key });
  return withRoundTrips(`/v2/codetemplates/${id}.json`, { key, method: 'PATCH', body });
}

beforeAll(async () => {
  site = await newInstallation('sentiment-trips');
  other = await newInstallation('sentiment-trips-other');
  key = site.users.agent.apiKey;
});

describe("a code template's sentiment in one round trip", () => {
  it('creates the row, then changes it, each with its event in one exchange', async () => {
    const id = await newTemplate(site.id);
    const first = await patch(id, { sentiment: { tone: 'negative' } });
    expect(first.answer.status, first.answer.text).toBe(200);
    expect(first.trips).toBe(1);
    expect(first.answer.body.sentiment).toMatchObject({
      tone: 'negative',
      threshold: 0.5,
      enabled: true,
      codeTemplate: { id },
    });
    const second = await patch(id, { sentiment: { threshold: 0.8, enabled: false } });
    expect(second.answer.status, second.answer.text).toBe(200);
    expect(second.trips).toBe(1);
    expect(second.answer.body.sentiment).toMatchObject({ tone: 'negative', threshold: 0.8, enabled: false });
    expect((await eventsOf(site.id, 'codetemplates', id)).map((event) => event.data)).toEqual([
      { sentiment: { tone: 'negative' } },
      { sentiment: { threshold: 0.8, enabled: false } },
    ]);
  });

  it("answers another installation's template, or none, with its 404 from the same exchange, nothing written", async () => {
    const theirs = await newTemplate(other.id);
    for (const id of [theirs, 2_000_000_000]) {
      const before = await sentiments();
      const { answer, trips } = await patch(id, { sentiment: { tone: 'positive' } });
      expectError(answer, 404, 'id');
      expect(answer.body.errors[0].detail).toBe(`code template ${id} not found`);
      expect(trips).toBe(1);
      expect(await sentiments()).toEqual(before);
    }
    expect(await eventsOf(other.id, 'codetemplates', theirs)).toEqual([]);
  });
});
