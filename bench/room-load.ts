// The room benchmark's load: N WebSocket clients in one room, run in a child process of its own
// (bench/room-load-child.ts) so that the clients never share an event loop with the local
// stack's stand-ins, which run in the bench process. Counted as `load` by bench/cpu.ts.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coresUsed, snapshot, type CpuUse } from './cpu';

export interface RoomSocket {
  url: string;
  headers: Record<string, string>;
}

export interface RoomLoadJob {
  label: string;
  /** prefixes every clientId: unique across the rounds of one room */
  tag: string;
  sockets: RoomSocket[];
  /** the room answers a join with this frame type before the socket counts as in the room (`welcome`); none for the echo */
  joinedFrame?: string;
  /** messages a second offered by all clients together, sent round robin at a fixed pace */
  ratePerSecond: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** offer permessage-deflate, as browsers do (the server then compresses every copy it sends) */
  deflate: boolean;
  /** the longest wait, after the last send, for the receipts still missing */
  drainSeconds: number;
}

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface RoomLoadResult {
  label: string;
  clients: number;
  /** ms to open every socket (and, for the room, to get every welcome) */
  joinMs: number;
  /** WebSocket extensions the server agreed to (permessage-deflate or none) */
  extensions: string;
  /** all messages sent, warm-up included */
  sentTotal: number;
  /** messages sent in the measured window */
  sent: number;
  /** seconds from the first to the last measured send */
  sendSeconds: number;
  sendsPerSecond: number;
  /** copies of measured messages received by clients other than their sender */
  receipts: number;
  /** receipts expected of measured messages: sent x (clients - 1) */
  expectedReceipts: number;
  receiptsPerSecond: number;
  /** send to receipt at each other client, ms, over every receipt of every measured message */
  latency: Percentiles;
  /** send to the sender's own copy (the room's acknowledgement), ms */
  ack: Percentiles;
  /** acknowledgements received for all messages sent, warm-up included */
  acksTotal: number;
  /** receipts still missing after the drain, all messages */
  missingReceipts: number;
  /** how late the pacer sent, ms: the load generator kept its pace if these stay small */
  pacerLate: { p99: number; max: number };
  errorFrames: number;
  firstErrors: string[];
  unexpectedCloses: number;
  /** every latency and ack time of the measured messages, ms, to pool rounds */
  raw: { latencies: number[]; acks: number[] };
  /** cores used during the measured window, by process group */
  cpu: CpuUse;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    count: sorted.length,
    p50: round(at(50)),
    p90: round(at(90)),
    p99: round(at(99)),
    max: round(sorted.at(-1) ?? NaN),
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / (sorted.length || 1)),
  };
}

const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'room-load-child.ts');

export function roomLoad(job: RoomLoadJob): Promise<RoomLoadResult> {
  return new Promise((resolve, reject) => {
    const worker = fork(child, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let start = snapshot();
    let cpu: CpuUse | undefined;
    let result: RoomLoadResult | undefined;
    worker.on('message', (message: { measuring?: true; sent?: true; result?: Omit<RoomLoadResult, 'cpu'> }) => {
      if (message.measuring) start = snapshot();
      // The measured window ends with its last send; taken while the child still runs.
      if (message.sent) cpu = coresUsed(start, snapshot());
      if (message.result) result = { ...message.result, cpu: cpu ?? coresUsed(start, snapshot()) };
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      result ? resolve(result) : reject(new Error(`the room load process exited with ${code} and no result`)),
    );
    worker.send(job);
  });
}
