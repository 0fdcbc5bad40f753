// The live heap of a Worker's isolate, read through the V8 inspector workerd serves (Miniflare's
// `inspectorPort`): what a leak in the service would grow, apart from workerd's own memory
// (its resident set grows under Miniflare whatever the Worker does: docs/benchmarks.md, "Soak").
import WebSocket from 'ws';
export { freePort } from '../scripts/free-port';

export interface IsolateHeap {
  /**
   * MiB of the isolate's heap still reachable: a heap snapshot is taken (its data dropped) because
   * it collects garbage fully first, which workerd's inspector does for no cheaper command
   * (`HeapProfiler.collectGarbage` goes unanswered); then `Runtime.getHeapUsage`. The isolate
   * pauses meanwhile, which shows in the latency of the requests it holds up.
   */
  liveMiB(): Promise<number>;
  close(): void;
}

/** A session on the V8 inspector of the Worker named `worker` (its inspector target is `core:user:<name>`). */
export async function inspector(
  inspectorPort: number,
  worker: string,
): Promise<{ call(method: string, params?: object): Promise<any>; close(): void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${inspectorPort}/core:user:${worker}`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let next = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = ++next;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
        if (message.id !== id) return; // snapshot chunks and other events
        socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** `IsolateHeap.liveMiB` on an open session (workerd answers one session an isolate: a benchmark that also samples keeps one). */
export async function liveHeapMiB(session: { call(method: string, params?: object): Promise<any> }): Promise<number> {
  await session.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
  const usage = (await session.call('Runtime.getHeapUsage')) as { usedSize: number };
  return usage.usedSize / 1024 / 1024;
}

/** The heap of the Worker named `worker`. */
export async function isolateHeap(inspectorPort: number, worker: string): Promise<IsolateHeap> {
  const session = await inspector(inspectorPort, worker);
  return { liveMiB: () => liveHeapMiB(session), close: session.close };
}
