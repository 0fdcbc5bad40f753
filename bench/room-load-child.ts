// One room load run, in a process of its own (driven by bench/room-load.ts over IPC): every
// client joins the room, then all send at a fixed total pace, round robin, for a warm-up whose
// figures are dropped and then the measured window; every copy of every message is timed from
// its send to its receipt. Open loop: a slow room does not slow the senders down. Bounded: it
// sends rate x (warm-up + duration) messages, waits at most `drainSeconds` for the rest, and exits.
import WebSocket from 'ws';
import { percentiles, type RoomLoadJob, type RoomLoadResult } from './room-load';

interface Sent {
  sender: number;
  at: number;
  measured: boolean;
  receipts: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A chat-sized message (about 80 characters). */
const textOf = (clientId: string) =>
  `Hello, this is ${clientId}: my parcel has not arrived yet, could you look into it?`;

async function run(job: RoomLoadJob): Promise<Omit<RoomLoadResult, 'cpu'>> {
  const n = job.sockets.length;
  const sent = new Map<string, Sent>();
  const latencies: number[] = [];
  const acks: number[] = [];
  let acksTotal = 0;
  let receiptsAll = 0;
  let errorFrames = 0;
  const firstErrors: string[] = [];
  let unexpectedCloses = 0;
  let closing = false;

  const joinStart = performance.now();
  const sockets = await Promise.all(
    job.sockets.map(
      (target, index) =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(target.url, { headers: target.headers, perMessageDeflate: job.deflate });
          let joined = false;
          socket.on('message', (data) => {
            const now = performance.now();
            const frame = JSON.parse(String(data)) as {
              type?: string;
              clientId?: string;
              code?: string;
              detail?: string;
            };
            if (!joined) {
              if (frame.type === job.joinedFrame) ((joined = true), resolve(socket));
              return;
            }
            if (frame.type === 'error') {
              errorFrames++;
              if (firstErrors.length < 5) firstErrors.push(JSON.stringify(frame));
              return;
            }
            if (frame.type !== 'message' || frame.clientId === undefined) return; // presence, typing
            const message = sent.get(frame.clientId);
            if (!message) return;
            if (message.sender === index) {
              acksTotal++;
              if (message.measured) acks.push(now - message.at);
              return;
            }
            message.receipts++;
            receiptsAll++;
            if (message.measured) latencies.push(now - message.at);
          });
          socket.once('open', () => {
            if (job.joinedFrame === undefined) ((joined = true), resolve(socket));
          });
          socket.once('unexpected-response', (_request, response) =>
            reject(new Error(`${job.label}: join ${index} refused with ${response.statusCode}`)),
          );
          socket.once('error', reject);
          socket.once('close', () => {
            if (!closing) unexpectedCloses++;
          });
        }),
    ),
  );
  const joinMs = performance.now() - joinStart;
  // Let the presence frames of the last joins pass before the first message.
  await sleep(500);

  const pacerLate: number[] = [];
  let seq = 0;
  /** Sends `count` messages at the job's pace, round robin over the clients; returns when the last is sent. */
  async function pace(count: number, measured: boolean, phase: string): Promise<{ first: number; last: number }> {
    const interval = 1000 / job.ratePerSecond;
    const start = performance.now();
    let first = NaN;
    let last = NaN;
    for (let k = 0; k < count; k++) {
      const due = start + k * interval;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const sender = seq % n;
      const clientId = `${job.tag}${phase}-${sender}-${seq++}`;
      const at = performance.now();
      if (measured) pacerLate.push(Math.max(0, at - due));
      sent.set(clientId, { sender, at, measured, receipts: 0 });
      sockets[sender]!.send(JSON.stringify({ type: 'message', message: textOf(clientId), clientId }));
      if (k === 0) first = at;
      last = at;
    }
    return { first, last };
  }

  await pace(Math.round(job.ratePerSecond * job.warmupSeconds), false, 'w');
  process.send!({ measuring: true });
  const measuredCount = Math.round(job.ratePerSecond * job.durationSeconds);
  const window = await pace(measuredCount, true, 'm');
  process.send!({ sent: true });

  const expectedAll = sent.size * (n - 1);
  const drainUntil = performance.now() + job.drainSeconds * 1000;
  while ((receiptsAll < expectedAll || acksTotal < sent.size) && performance.now() < drainUntil) await sleep(20);
  const receipts = latencies.length;
  const sendSeconds = (window.last - window.first) / 1000 + 1 / job.ratePerSecond;

  closing = true;
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => (socket.terminate(), resolve()), 2000);
          socket.once('close', () => (clearTimeout(timer), resolve()));
          socket.close(1000, 'done');
        }),
    ),
  );

  const lateSorted = pacerLate.sort((a, b) => a - b);
  return {
    label: job.label,
    clients: n,
    joinMs: Math.round(joinMs),
    extensions: sockets[0]!.extensions || 'none',
    sentTotal: sent.size,
    sent: measuredCount,
    sendSeconds,
    sendsPerSecond: measuredCount / sendSeconds,
    receipts,
    expectedReceipts: measuredCount * (n - 1),
    receiptsPerSecond: receipts / sendSeconds,
    latency: percentiles(latencies),
    ack: percentiles(acks),
    acksTotal,
    missingReceipts: expectedAll - receiptsAll,
    pacerLate: {
      p99: Math.round((lateSorted[Math.ceil(0.99 * lateSorted.length) - 1] ?? NaN) * 1000) / 1000,
      max: Math.round((lateSorted.at(-1) ?? NaN) * 1000) / 1000,
    },
    errorFrames,
    firstErrors,
    unexpectedCloses,
    raw: { latencies, acks },
  };
}

process.once('message', async (job: RoomLoadJob) => {
  try {
    const result = await run(job);
    process.send!({ result }, () => process.exit(0));
  } catch (error) {
    process.stderr.write(
      `room load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  }
});
