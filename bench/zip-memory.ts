// `npm run bench:zip`: what `GET /v2/tickets/{id}/files.zip` costs the Worker's memory (issue 32:
// a ticket with 200 MB of attachments must not need 200 MB of a Worker's 128 MB), on 127.0.0.1 only.
//
//   1. a throwaway local stack, one installation (bench/seed.ts), the service in workerd through
//      Miniflare with its V8 inspector open (bench/workers.ts, bench/isolate-heap.ts);
//   2. BENCH_ZIP_FILES files (default 8) of BENCH_ZIP_FILE_MIB MiB each (default 25, the upload
//      limit) of random bytes, through the API's three-step upload (ref, the form, the
//      confirmation), attached to one ticket;
//   3. four phases, each sampled every BENCH_ZIP_SAMPLE_MS (200): the isolate's used heap
//      (`Runtime.getHeapUsage`, no collection forced: what V8 holds at that moment, garbage
//      included, and the ArrayBuffer backing stores beside it) and workerd's resident set:
//      idle (BENCH_ZIP_IDLE_SECONDS, 3), one file's download (the baseline: the same Worker
//      answering `GET /v2/tickets/{id}/files/{fileId}/download`), the zip read as fast as it
//      comes, and the zip read by a slow client (BENCH_ZIP_SLOW_MIBS, 20 MiB/s; the single file
//      too). At full speed the isolate is busy throughout and the inspector is answered only
//      before and after; a slow client makes the Worker wait on it, and its heap is read along
//      the way (and a Worker that read ahead of its client would show it there). The isolate's
//      live heap (a full collection first) is read before the first phase and after each;
//   4. the peaks, the zip's against the baseline's, as MiB and ratios; the zip's used heap by
//      quarter of the bytes received (flat, or growing with what was sent); the checks: both
//      downloads whole (bytes received = Content-Length = the predicted length; the zip's end
//      record names every file), nothing kept after the zip (the live heap), and the slow zip's
//      used heap under the limit with its floor after collections flat.
import { randomBytes } from 'node:crypto';
import { predictLength } from 'client-zip';
import { workerdMemoryMiB } from './cpu';
import { freePort, inspector, liveHeapMiB } from './isolate-heap';
import { log, runBench, setting, stops } from './lifecycle';
import { align, fixed, machine } from './report';
import { seed } from './seed';
import { startService } from './workers';
import { startLocalStack } from '../scripts/stack';
import { quietWranglerEnv } from '../scripts/worker-vars';
import { MAX_FILE_BYTES } from '../src/resources/files/upload-policy';

const config = {
  files: setting('BENCH_ZIP_FILES', 8, true),
  fileMiB: setting('BENCH_ZIP_FILE_MIB', 25, true),
  sampleMs: setting('BENCH_ZIP_SAMPLE_MS', 200, true),
  idleSeconds: setting('BENCH_ZIP_IDLE_SECONDS', 3, true),
  /** MiB/s a slow client reads at: the Worker then waits on it, and the inspector gets its turn */
  slowMiBs: setting('BENCH_ZIP_SLOW_MIBS', 20, true),
};
Object.assign(process.env, quietWranglerEnv);

const MiB = 1024 * 1024;
/** The Workers platform's memory limit of an isolate. */
const LIMIT_MiB = 128;

/** A reading of the isolate's heap (`usedMiB`, `backingMiB`) or of workerd's resident set (`residentMiB`); the others NaN. */
interface Sample {
  at: number;
  /** bytes of the answer received when the sample was taken */
  received: number;
  usedMiB: number;
  /** ArrayBuffer backing stores (outside the JS heap proper), when the inspector reports them */
  backingMiB: number;
  residentMiB: number;
}

interface Phase {
  label: string;
  samples: Sample[];
  bytes: number;
  expected: number;
  /** the isolate's live heap after it (a full collection first) */
  liveAfterMiB: number;
  seconds: number;
}

/** The highest reading of `pick` among the samples that have one; NaN when none has. */
const peak = (samples: Sample[], pick: (s: Sample) => number) => {
  const values = samples.map(pick).filter(Number.isFinite);
  return values.length ? Math.max(...values) : Number.NaN;
};
const counted = (samples: Sample[], pick: (s: Sample) => number) =>
  samples.filter((s) => Number.isFinite(pick(s))).length;

async function main(): Promise<void> {
  const host = machine();
  log(
    `machine: ${host.nproc} CPUs (${host.cpu}), ${host.memoryGiB} GiB, node ${host.node}, ${host.workerd}, load average ${host.loadAverageAtStart.join(' ')}`,
  );
  const fileBytes = Math.round(config.fileMiB * MiB);
  if (fileBytes > MAX_FILE_BYTES) throw new Error(`BENCH_ZIP_FILE_MIB: a file is at most ${MAX_FILE_BYTES / MiB} MiB`);
  log(
    `settings: ${config.files} files of ${fixed(config.fileMiB, 1)} MiB (${fixed((config.files * fileBytes) / MiB, 0)} MiB), a sample every ${config.sampleMs} ms`,
  );

  const stack = await startLocalStack({ purpose: 'test' });
  stops.push(stack.stop);
  const data = await seed(stack.databaseUrl, 3);
  const inspectorPort = await freePort();
  const service = await startService(stack, { inspectorPort });
  stops.push(service.stop);
  // one inspector session for the whole run: workerd leaves a second one on the same isolate,
  // or a new one after the first is closed, unanswered
  const session = await inspector(inspectorPort, 'helpdesk-api');
  stops.push(async () => session.close());
  const liveMiB = () => liveHeapMiB(session);

  const auth = { authorization: `Bearer ${data.ownerKey}` };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as Record<string, any>;
  };

  // the three-step upload, as the platform's client does it (test/support/files.ts)
  const uploadStart = Date.now();
  const fileIds: number[] = [];
  for (let index = 0; index < config.files; index++) {
    const ref = await call('POST', '/v2/files/ref.json', {
      file: { type: 'attachment', filename: `part-${index}.bin`, mimeType: 'application/octet-stream' },
    });
    const form = new FormData();
    for (const [field, value] of Object.entries(ref.params as Record<string, string>))
      if (value !== '') form.append(field, value);
    form.append('file', new Blob([randomBytes(fileBytes)]), `part-${index}.bin`);
    const uploaded = await fetch(ref.url as string, { method: 'POST', body: form });
    if (uploaded.status !== 201) throw new Error(`upload ${index}: ${uploaded.status} ${await uploaded.text()}`);
    await call('PATCH', `/v2/files/${ref.file.id}.json`);
    fileIds.push(ref.file.id as number);
  }
  const inbox = (await call('GET', '/v2/inboxes.json')).inboxes[0].id as number;
  const ticket = (
    await call('POST', '/v2/tickets.json', {
      ticket: {
        subject: 'Zip memory',
        inbox,
        customer: { email: 'zip@bench.test' },
        message: 'attached',
        notifyCustomer: false,
        files: fileIds.map((id) => ({ id })),
      },
    })
  ).ticket.id as number;
  log(
    `uploaded ${config.files} files and made ticket ${ticket} in ${((Date.now() - uploadStart) / 1000).toFixed(1)} s`,
  );

  /**
   * Samples the isolate's heap and workerd's resident set every `sampleMs` while `run` runs, each
   * on its own clock: the inspector answers only when the isolate lets it (not while the zip
   * keeps it busy), /proc always. `received()` says how far the answer is when a reading arrives.
   */
  const sampled = async (run: () => Promise<void>, received: () => number) => {
    const samples: Sample[] = [];
    const begin = Date.now();
    const resident = () =>
      void samples.push({
        at: Date.now() - begin,
        received: received(),
        usedMiB: Number.NaN,
        backingMiB: Number.NaN,
        residentMiB: workerdMemoryMiB(),
      });
    resident();
    const residentTimer = setInterval(resident, config.sampleMs);
    let done = false;
    const loop = (async () => {
      while (!done) {
        const tick = Date.now();
        const usage = (await session.call('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
        samples.push({
          at: Date.now() - begin,
          received: received(),
          usedMiB: usage.usedSize / MiB,
          backingMiB: (usage.backingStorageSize ?? Number.NaN) / MiB,
          residentMiB: Number.NaN,
        });
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, config.sampleMs - (Date.now() - tick))));
      }
    })();
    try {
      await run();
    } finally {
      done = true;
      clearInterval(residentTimer);
      resident();
      await loop;
    }
    return { samples, seconds: (Date.now() - begin) / 1000 };
  };

  /** Downloads `path`, counting its bytes (nothing kept but the last 64 KiB: the zip's end records). */
  const download = async (
    label: string,
    path: string,
    expected: number,
    mibPerSecond = Infinity,
  ): Promise<Phase & { tail: Uint8Array; contentLength: number }> => {
    let bytes = 0;
    let contentLength = Number.NaN;
    let tail = new Uint8Array(0);
    const begin = Date.now();
    const work = async () => {
      const response = await fetch(`${service.url}${path}`, { headers: auth });
      if (response.status !== 200) throw new Error(`${label}: ${response.status} ${await response.text()}`);
      contentLength = Number(response.headers.get('content-length'));
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        const joined = new Uint8Array(tail.length + chunk.byteLength);
        joined.set(tail);
        joined.set(chunk, tail.length);
        tail = joined.subarray(Math.max(0, joined.length - 64 * 1024));
        const ahead = (bytes / MiB / mibPerSecond) * 1000 - (Date.now() - begin);
        if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, ahead));
      }
    };
    const { samples, seconds } = await sampled(work, () => bytes);
    const liveAfterMiB = await liveMiB();
    return { label, samples, bytes, expected, liveAfterMiB, seconds, tail, contentLength };
  };

  const liveAtStart = await liveMiB();
  log(`the isolate's live heap before: ${fixed(liveAtStart, 2)} MiB`);
  const idleRun = await sampled(
    () => new Promise((resolve) => setTimeout(resolve, config.idleSeconds * 1000)),
    () => 0,
  );
  const idle: Phase = { label: 'idle', ...idleRun, bytes: 0, expected: 0, liveAfterMiB: await liveMiB() };
  const single = await download(
    `one file, ${config.slowMiBs} MiB/s`,
    `/v2/tickets/${ticket}/files/${fileIds[0]}/download`,
    fileBytes,
    config.slowMiBs,
  );
  const names = fileIds.map((_, index) => ({ name: `part-${index}.bin`, size: fileBytes }));
  const fast = await download(
    'the zip, at full speed',
    `/v2/tickets/${ticket}/files.zip`,
    Number(predictLength(names)),
  );
  const zip = await download(
    `the zip, ${config.slowMiBs} MiB/s`,
    `/v2/tickets/${ticket}/files.zip`,
    Number(predictLength(names)),
    config.slowMiBs,
  );

  const phases = [idle, single, fast, zip];
  log('');
  log(
    align(
      [
        'phase',
        'MiB received',
        'seconds',
        'heap / RSS samples',
        'peak used heap MiB',
        'peak backing stores MiB',
        'peak workerd RSS MiB',
        'live heap after MiB',
      ],
      phases.map((p) => [
        p.label,
        fixed(p.bytes / MiB, 1),
        fixed(p.seconds, 1),
        `${counted(p.samples, (s) => s.usedMiB)} / ${counted(p.samples, (s) => s.residentMiB)}`,
        fixed(
          peak(p.samples, (s) => s.usedMiB),
          2,
        ),
        fixed(
          peak(p.samples, (s) => s.backingMiB),
          2,
        ),
        fixed(
          peak(p.samples, (s) => s.residentMiB),
          1,
        ),
        fixed(p.liveAfterMiB, 2),
      ]),
    ),
  );
  // the zip's samples by quarter of its bytes: a heap that grows with what was sent rises quarter by quarter
  const quarters = [1, 2, 3, 4].map((q) => {
    const inQuarter = zip.samples.filter(
      (s) => s.received > ((q - 1) * zip.expected) / 4 && s.received <= (q * zip.expected) / 4,
    );
    return {
      q,
      samples: `${counted(inQuarter, (s) => s.usedMiB)} / ${counted(inQuarter, (s) => s.residentMiB)}`,
      used: peak(inQuarter, (s) => s.usedMiB),
      resident: peak(inQuarter, (s) => s.residentMiB),
    };
  });
  log('');
  log(
    align(
      ['the zip, by bytes received', 'heap / RSS samples', 'peak used heap MiB', 'peak workerd RSS MiB'],
      quarters.map((q) => [`quarter ${q.q}`, q.samples, fixed(q.used, 2), fixed(q.resident, 1)]),
    ),
  );

  // the readings in order: a drop is a collection; garbage piles up between them, what is kept does not drop
  log(
    `  the slow zip's used heap, reading by reading (MiB): ${zip.samples
      .filter((s) => Number.isFinite(s.usedMiB))
      .map((s) => s.usedMiB.toFixed(0))
      .join(' ')}`,
  );
  const idlePeak = peak(idle.samples, (s) => s.usedMiB);
  const singlePeak = peak(single.samples, (s) => s.usedMiB);
  const zipPeak = peak(zip.samples, (s) => s.usedMiB);
  log('');
  log(
    `the zip's peak used heap: ${fixed(zipPeak, 2)} MiB; against one file's download ${fixed(singlePeak, 2)} MiB: ratio ${fixed(zipPeak / singlePeak, 2)}, ${zipPeak >= singlePeak ? '+' : ''}${fixed(zipPeak - singlePeak, 2)} MiB; against idle ${fixed(idlePeak, 2)} MiB: ratio ${fixed(zipPeak / idlePeak, 2)}, +${fixed(zipPeak - idlePeak, 2)} MiB`,
  );
  log(
    `  above idle: the zip ${fixed(zipPeak - idlePeak, 2)} MiB for ${fixed(zip.bytes / MiB, 0)} MiB sent, one file ${fixed(singlePeak - idlePeak, 2)} MiB for ${fixed(single.bytes / MiB, 0)} MiB sent`,
  );

  const usedGrowth = zipPeak - idlePeak;
  const floors = quarters.map((q) =>
    Math.min(
      ...zip.samples
        .filter(
          (s) =>
            Number.isFinite(s.usedMiB) &&
            s.received > ((q.q - 1) * zip.expected) / 4 &&
            s.received <= (q.q * zip.expected) / 4,
        )
        .map((s) => s.usedMiB),
    ),
  );
  const checks = [
    {
      name: `${single.label}: arrived whole`,
      pass: single.bytes === single.expected && single.contentLength === single.bytes,
      detail: `${single.bytes} bytes of ${single.expected} (Content-Length ${single.contentLength})`,
    },
    ...[fast, zip].map((z) => {
      // the zip's end of central directory record (the last 22 bytes, no comment): how many entries it names
      const view = new DataView(z.tail.buffer, z.tail.byteOffset, z.tail.byteLength);
      const end = z.tail.length - 22;
      const entries = end >= 0 && view.getUint32(end, true) === 0x06054b50 ? view.getUint16(end + 10, true) : -1;
      return {
        name: `${z.label}: arrived whole`,
        pass: z.bytes === z.expected && z.contentLength === z.bytes && entries === config.files,
        detail: `${z.bytes} bytes of ${z.expected} predicted (Content-Length ${z.contentLength}), its end record names ${entries} entries of ${config.files}`,
      };
    }),
    {
      name: "nothing kept: the isolate's live heap after the zip within 2 MiB of idle's",
      pass: Math.max(fast.liveAfterMiB, zip.liveAfterMiB) - idle.liveAfterMiB <= 2,
      detail: `${fixed(idle.liveAfterMiB, 2)} MiB after idle, ${fixed(fast.liveAfterMiB, 2)} and ${fixed(zip.liveAfterMiB, 2)} MiB after the zips`,
    },
    {
      // V8 lets garbage pile up to a bound of its own between collections (a sawtooth): what would
      // grow with the ticket is the floor the collections bring it back to
      name: "the slow zip's used heap under the limit, its floor after collections flat (last quarter's lowest within 8 MiB of the first's)",
      pass: zipPeak < LIMIT_MiB && floors.at(-1)! - floors[0]! <= 8,
      detail: `peak ${fixed(zipPeak, 2)} MiB of ${LIMIT_MiB} (${fixed(usedGrowth, 2)} MiB above idle for ${fixed(zip.bytes / MiB, 0)} MiB sent); lowest by quarter ${floors.map((f) => fixed(f, 1)).join(', ')} MiB; ${counted(zip.samples, (s) => s.usedMiB)} readings in ${fixed(zip.seconds, 1)} s`,
    },
  ];
  log('');
  for (const check of checks) log(`  ${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
  if (checks.some((check) => !check.pass)) process.exitCode = 1;
}

await runBench(main);
