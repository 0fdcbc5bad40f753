// POST /v2/companies/import.csv end to end: the request stages the rows and queues the chunks,
// the real queue (Miniflare) delivers them to the consumer in the Worker, and the job's progress
// is read through GET /v2/backgroundjobs/{id}.json, as a client would.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api, type ApiResponse } from '../support/api';
import { checkAnswer } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { finishedJob, readJob, startImport } from '../support/jobs';
import { sendJobMessage } from '../support/queue';
import { backgroundWait, eventually } from '../support/room';

let site: SeededInstallation;
let other: SeededInstallation;
let key: string;

beforeAll(async () => {
  site = await newInstallation('import');
  other = await newInstallation('import-other');
  key = site.users.agent.apiKey;
});

function postCsv(
  csv: string | FormData | Uint8Array,
  options: { key?: string | null; type?: string | null } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const credential = options.key === undefined ? key : options.key;
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (options.type) headers['content-type'] = options.type;
  else if (typeof csv === 'string' && options.type !== null) headers['content-type'] = 'text/csv';
  return fetchRaw('/v2/companies/import.csv', { method: 'POST', headers, body: csv });
}

/** Like `api`, but sends the body exactly as given (a CSV string or a multipart form, with or without a content type); the answer is checked against the document all the same. */
async function fetchRaw(path: string, init: RequestInit): Promise<ApiResponse> {
  const url = inject('workerUrl') + path;
  return checkAnswer(init.method ?? 'GET', url, await fetch(url, init));
}

async function companiesNamed(installationId: number, name: string) {
  return rows<{
    id: number;
    name: string;
    email: string | null;
    website: string | null;
    industry: string | null;
    details: string | null;
    description: string | null;
    created_by: number | null;
  }>(
    `SELECT id, name, email, website, industry, details, description, created_by FROM companies
      WHERE installation_id = $1 AND lower(name) = lower($2) AND state = 'active' ORDER BY id`,
    [installationId, name],
  );
}

async function childrenOf(companyId: number) {
  const domains = await rows<{ name: string }>(
    `SELECT name FROM company_domains WHERE company_id = $1 AND state = 'active' ORDER BY name`,
    [companyId],
  );
  const phones = await rows<{ number: string }>(
    `SELECT number FROM company_phones WHERE company_id = $1 AND state = 'active' ORDER BY number`,
    [companyId],
  );
  return { domains: domains.map((d) => d.name), phones: phones.map((p) => p.number) };
}

describe('a small import', () => {
  it('answers 201 with a Location, runs on the queue and completes with every row imported', async () => {
    const csv = [
      'name,email,website,industry,details,description,phones,domains',
      'Small One,info@small-one.test,https://small-one.test,Retail,"Details, with a comma","two\nlines",+1 555 0101; +1 555 0102,small-one.test;Small-One.example',
      'Small Two,,,,,,,',
    ].join('\r\n');
    const jobId = await startImport(key, csv);
    const job = await finishedJob(key, jobId);
    expect(job).toMatchObject({
      id: jobId,
      type: 'backgroundjobs',
      jobType: 1,
      jobAction: 1,
      status: 'completed',
      rowsTotal: 2,
      rowsDone: 2,
      rowsFailed: 0,
      problems: [],
      createdBy: { id: site.users.agent.id, type: 'users' },
    });
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();

    const [one] = await companiesNamed(site.id, 'Small One');
    expect(one).toMatchObject({
      name: 'Small One',
      email: 'info@small-one.test',
      website: 'https://small-one.test',
      industry: 'Retail',
      details: 'Details, with a comma',
      description: 'two\nlines',
      created_by: site.users.agent.id,
    });
    expect(await childrenOf(one!.id)).toEqual({
      domains: ['small-one.example', 'small-one.test'],
      phones: ['+1 555 0101', '+1 555 0102'],
    });
    const [two] = await companiesNamed(site.id, 'Small Two');
    expect(two).toMatchObject({ email: null, website: null });

    // Staged rows are gone and every chunk is done.
    expect(await rows('SELECT 1 FROM import_rows WHERE job_id = $1', [jobId])).toHaveLength(0);
    expect(await rows('SELECT 1 FROM import_chunks WHERE job_id = $1 AND done_at IS NULL', [jobId])).toHaveLength(0);
    // The company is readable through the API like any other.
    const listed = await api('/v2/companies.json', { key, query: { filter: { name: 'Small One' } } });
    expect(listed.body.companies).toHaveLength(1);
  });

  it('takes the CSV as the field "file" of a multipart form too', async () => {
    const form = new FormData();
    form.append('file', new Blob(['name,industry\nMultipart Co,Media\n'], { type: 'text/csv' }), 'companies.csv');
    const jobId = await startImport(key, form);
    expect(await finishedJob(key, jobId)).toMatchObject({ status: 'completed', rowsDone: 1, rowsFailed: 0 });
    expect(await companiesNamed(site.id, 'Multipart Co')).toEqual([expect.objectContaining({ industry: 'Media' })]);
  });
});

describe('bad rows', () => {
  it('are reported with their line and reason, and the good rows still import', async () => {
    const csv = [
      'name,email,domains,phones', // line 1
      'Good Row One,one@good.test,good-one.test,', // 2
      ',nobody@bad.test,,', // 3: no name
      'Bad Email Co,not-an-email,,', // 4
      'Bad Domain Co,,not a domain,', // 5
      '"Multi', // 6: a record over two lines
      'Line Co",,,', // 7
      'Too Few Fields', // 8
      `${'x'.repeat(256)},,,`, // 9
      'Good Row Two,,,', // 10
    ].join('\n');
    const jobId = await startImport(key, csv);
    const job = await finishedJob(key, jobId);
    expect(job).toMatchObject({ status: 'completed', rowsTotal: 8, rowsDone: 8, rowsFailed: 5 });
    expect(job.problems).toEqual([
      { line: 3, reason: 'name must be set' },
      { line: 4, reason: 'email "not-an-email" is not a valid email address' },
      { line: 5, reason: 'domains: "not a domain" is not a domain name such as example.com' },
      { line: 8, reason: 'has 1 fields; the header has 4' },
      { line: 9, reason: 'name is longer than 255 characters' },
    ]);
    for (const name of ['Good Row One', 'Good Row Two', 'Multi\nLine Co'])
      expect(await companiesNamed(site.id, name)).toHaveLength(1);
    for (const name of ['Bad Email Co', 'Bad Domain Co', 'Too Few Fields'])
      expect(await companiesNamed(site.id, name)).toHaveLength(0);
  });
});

describe('an existing company', () => {
  it('is updated, not duplicated: given cells change, empty cells keep, domains and phones are added once', async () => {
    const created = await api('/v2/companies.json', {
      method: 'POST',
      key,
      body: {
        company: {
          name: 'Existing Co',
          website: 'https://existing.test',
          industry: 'Old',
          domains: [{ name: 'existing.test' }],
          phones: [{ number: '+1 555 0200' }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.company.id as number;
    const csv = [
      'Name,Email,Website,Industry,Domains,Phones',
      'EXISTING co,hello@existing.test,,New,existing.test;existing.example,+1 555 0200',
      'existing CO,,,,existing.org,+1 555 0201', // the same company again in the same file
    ].join('\n');
    const jobId = await startImport(key, csv);
    expect(await finishedJob(key, jobId)).toMatchObject({ status: 'completed', rowsDone: 2, rowsFailed: 0 });
    const found = await companiesNamed(site.id, 'existing co');
    expect(found).toEqual([
      expect.objectContaining({
        id,
        name: 'Existing Co',
        email: 'hello@existing.test',
        website: 'https://existing.test',
        industry: 'New',
      }),
    ]);
    expect(await childrenOf(id)).toEqual({
      domains: ['existing.example', 'existing.org', 'existing.test'],
      phones: ['+1 555 0200', '+1 555 0201'],
    });
    // Another installation's company of the same name is untouched; this import never sees it.
    expect(await companiesNamed(other.id, 'existing co')).toHaveLength(0);
  });
});

describe('bad input changes nothing', () => {
  /** Everything an import writes, for this installation. */
  async function snapshot() {
    const count = async (text: string) => (await rows<{ n: number }>(text, [site.id]))[0]!.n;
    return {
      jobs: await count('SELECT count(*)::int AS n FROM background_jobs WHERE installation_id = $1'),
      staged: await count(
        'SELECT count(*)::int AS n FROM import_rows r JOIN background_jobs j ON j.id = r.job_id WHERE j.installation_id = $1',
      ),
      companies: await rows(
        'SELECT id, name, email, updated_at::text FROM companies WHERE installation_id = $1 ORDER BY id',
        [site.id],
      ),
    };
  }

  async function refused(
    response: Promise<ApiResponse>,
    status: number,
    source: string | RegExp | null,
    detail?: RegExp,
  ) {
    const before = await snapshot();
    const answer = await response;
    expectError(answer, status, source, detail);
    expect(await snapshot()).toEqual(before);
  }

  it('not CSV: 415', async () => {
    await refused(postCsv('name\nAcme Refused\n', { type: 'application/json' }), 415, 'body', /text\/csv/);
    await refused(postCsv('name\nAcme Refused\n', { type: null }), 415, 'body');
    const form = new FormData();
    form.append('file', new Blob(['{}'], { type: 'application/json' }), 'companies.json');
    await refused(postCsv(form), 415, 'body');
  });

  it('no header, no name column, unknown or repeated columns, no rows, broken quoting: 400 naming the culprit', async () => {
    await refused(postCsv(''), 400, 'body', /empty.*header row/);
    await refused(
      postCsv('Acme Refused,info@acme.test\n'),
      400,
      'header',
      /unknown columns: "acme refused", "info@acme.test"/,
    );
    await refused(postCsv('email,website\ninfo@acme.test,\n'), 400, 'header', /no "name" column/);
    await refused(
      postCsv('name,colour,size\nAcme Refused,red,9\n'),
      400,
      'header',
      /unknown columns: "colour", "size"/,
    );
    await refused(postCsv('name,email,Name\nAcme Refused,,\n'), 400, 'header', /"name" appears twice/);
    await refused(postCsv('name,email\n'), 400, 'body', /no rows/);
    await refused(postCsv('name\n"Acme Refused\n'), 400, 'body', /line 2: a quoted field is never closed/);
    await refused(
      postCsv(new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xff, 0xfe]), { type: 'text/csv' }),
      400,
      'body',
      /UTF-8/,
    );
    const noFile = new FormData();
    noFile.append('csv', 'name\nAcme Refused\n');
    await refused(postCsv(noFile), 400, 'file');
  });

  it('too large: 413 with the limit in the message', async () => {
    await refused(
      postCsv(`name,details\nAcme Refused,${'x'.repeat(20 * 1024 * 1024)}\n`),
      413,
      'body',
      /20971520 bytes \(20 MB\)/,
    );
    await refused(postCsv(`name\n${'a\n'.repeat(200_001)}`), 413, 'body', /200001 rows; the limit is 200000 rows/);
  });

  it('no credential: 401; a collaborator: 403', async () => {
    await refused(postCsv('name\nAcme Refused\n', { key: null }), 401, null);
    await refused(postCsv('name\nAcme Refused\n', { key: site.users.collaborator.apiKey }), 403, null);
  });
});

describe('cancelling', () => {
  it('stops the chunks not yet run; what ran stays counted and written', async () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `Cancel Co ${i + 1}`);
    const jobId = await startImport(key, `name\n${names.join('\n')}\n`);
    const cancel = await api(`/v2/backgroundjobs/1/1/${jobId}.json`, { method: 'DELETE', key });
    expect(cancel.status, cancel.text).toBe(204);
    // Every chunk's message arrives; the cancelled ones do nothing but let their staged rows go.
    await eventually(
      async () =>
        (await rows('SELECT 1 FROM import_rows WHERE job_id = $1 LIMIT 1', [jobId])).length === 0 ? true : undefined,
      backgroundWait(30_000),
    );
    const job = await readJob(key, jobId);
    expect(job.status).toBe('cancelled');
    expect(job.rowsDone).toBeLessThan(5_000);
    const imported = await rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM companies WHERE installation_id = $1 AND name LIKE 'Cancel Co %'`,
      [site.id],
    );
    expect(imported[0]!.n).toBe(job.rowsDone);
    const done = await rows<{ n: number }>(
      'SELECT count(*)::int AS n FROM import_chunks WHERE job_id = $1 AND done_at IS NOT NULL',
      [jobId],
    );
    expect(done[0]!.n * 1_000).toBe(job.rowsDone);
    // The staged rows of the chunks that did not run are let go once their messages arrive.
    expect(await rows('SELECT 1 FROM import_rows WHERE job_id = $1', [jobId])).toHaveLength(0);
    // Cancelling again is still a 204, and the job stays as it is.
    expect((await api(`/v2/backgroundjobs/1/1/${jobId}.json`, { method: 'DELETE', key })).status).toBe(204);
    expect(await readJob(key, jobId)).toEqual(job);
  });

  it('a completed import cannot be cancelled: 409', async () => {
    const jobId = await startImport(key, 'name\nFinished Co\n');
    await finishedJob(key, jobId);
    expectError(await api(`/v2/backgroundjobs/1/1/${jobId}.json`, { method: 'DELETE', key }), 409, 'id');
  });
});

describe('a message delivered twice', () => {
  it('does no harm: a chunk already done is not done again', async () => {
    const jobId = await startImport(key, 'name,domains\nTwice Co,twice.test\nTwice Two,two.test\n');
    const done = await finishedJob(key, jobId);
    expect(done).toMatchObject({ status: 'completed', rowsDone: 2, rowsFailed: 0 });
    const chunks = await rows<{ chunk: number }>('SELECT chunk FROM import_chunks WHERE job_id = $1', [jobId]);
    expect(chunks.length).toBe(1);
    const before = await rows(
      `SELECT id, name, updated_at::text FROM companies WHERE installation_id = $1 AND name LIKE 'Twice%' ORDER BY id`,
      [site.id],
    );
    const domainsBefore = await rows(`SELECT id FROM company_domains WHERE company_id = ANY($1) ORDER BY id`, [
      before.map((c) => c.id),
    ]);

    await sendJobMessage({ kind: 'companies.import', jobId, chunk: chunks[0]!.chunk });
    await sendJobMessage({ kind: 'companies.import', jobId, chunk: chunks[0]!.chunk });
    // A later import on the same queue finishing shows the redeliveries were consumed too.
    await finishedJob(key, await startImport(key, 'name\nAfter Twice\n'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    expect(
      await rows(
        `SELECT id, name, updated_at::text FROM companies WHERE installation_id = $1 AND name LIKE 'Twice%' ORDER BY id`,
        [site.id],
      ),
    ).toEqual(before);
    expect(
      await rows(`SELECT id FROM company_domains WHERE company_id = ANY($1) ORDER BY id`, [before.map((c) => c.id)]),
    ).toEqual(domainsBefore);
    expect(await readJob(key, jobId)).toEqual(done);
  });
});

describe('a consumer that dies mid-chunk', () => {
  // A trigger of this test's own makes the chunk's transaction fail once, after the companies are
  // written, as a crash would; the queue redelivers the message and the chunk is done whole.
  const sequence = `test_import_dies_${Math.random().toString(36).slice(2, 10)}`;
  beforeAll(async () => {
    await rows(`CREATE SEQUENCE ${sequence}`);
    await rows(`CREATE OR REPLACE FUNCTION test_import_dies_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- nextval is never rolled back, so only the first attempt dies
        IF nextval(TG_ARGV[0]) = 1 THEN RAISE EXCEPTION 'test: the consumer dies mid-chunk'; END IF;
        RETURN NEW;
      END $$`);
    await rows(`CREATE TRIGGER ${sequence} AFTER INSERT ON company_domains FOR EACH ROW
      WHEN (NEW.installation_id = ${site.id} AND NEW.name = 'dies.test') EXECUTE FUNCTION test_import_dies_once('${sequence}')`);
  });
  afterAll(async () => {
    await rows(`DROP TRIGGER IF EXISTS ${sequence} ON company_domains`);
    await rows(`DROP SEQUENCE IF EXISTS ${sequence}`);
  });

  it('leaves no duplicates and no lost rows: the redelivery does the chunk exactly once', async () => {
    const csv = ['name,domains', 'Dies Before,before.test', 'Dies Co,dies.test', ',', 'Dies After,after.test'].join(
      '\n',
    );
    const jobId = await startImport(key, csv);
    const job = await finishedJob(key, jobId, 30_000);
    expect(job).toMatchObject({
      status: 'completed',
      rowsTotal: 4,
      rowsDone: 4,
      rowsFailed: 1,
      problems: [{ line: 4, reason: 'name must be set' }],
    });
    // It did die once: the trigger fired at least twice.
    const fired = await rows<{ last_value: string }>(`SELECT last_value FROM ${sequence}`);
    expect(Number(fired[0]!.last_value)).toBeGreaterThanOrEqual(2);
    for (const [name, domain] of [
      ['Dies Before', 'before.test'],
      ['Dies Co', 'dies.test'],
      ['Dies After', 'after.test'],
    ] as const) {
      const found = await companiesNamed(site.id, name);
      expect(found).toHaveLength(1);
      expect((await childrenOf(found[0]!.id)).domains).toEqual([domain]);
    }
  });
});

describe('a 100,000-row file', () => {
  it('imports completely', async () => {
    const count = 100_000;
    const lines = ['name,email,domains,phones'];
    for (let i = 1; i <= count; i++)
      lines.push(`Bulk Co ${i},info@bulk-${i}.test,bulk-${i}.test,+1 555 ${String(i).padStart(6, '0')}`);
    const started = Date.now();
    const jobId = await startImport(key, lines.join('\n'));
    const accepted = Date.now();
    const job = await finishedJob(key, jobId, 170_000);
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `import of ${count} rows: request ${(accepted - started) / 1000} s, done after ${seconds} s (${Math.round(count / seconds)} rows/s)`,
    );
    expect(job).toMatchObject({ status: 'completed', rowsTotal: count, rowsDone: count, rowsFailed: 0 });
    const [row] = await rows<{ companies: number; domains: number; phones: number }>(
      `SELECT count(*)::int AS companies,
              (SELECT count(*)::int FROM company_domains d WHERE d.company_id = ANY(array_agg(c.id))) AS domains,
              (SELECT count(*)::int FROM company_phones p WHERE p.company_id = ANY(array_agg(c.id))) AS phones
         FROM companies c WHERE c.installation_id = $1 AND c.name LIKE 'Bulk Co %'`,
      [site.id],
    );
    expect(row).toEqual({ companies: count, domains: count, phones: count });
  }, 180_000);
});
