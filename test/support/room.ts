import WebSocket from 'ws';
import { databaseRttMs } from '../../scripts/stack/distance';

/**
 * A wait for work done in the background (the events' drain and what its subscribers do, a
 * room's frame that follows it), stretched by the database's distance (HELPDESK_DB_RTT_MS, the
 * far run of `npm test`): that work makes tens of exchanges with the database, each paying it.
 * 200 round trips on top: 10 s more at 50 ms. Near, the wait as given.
 */
export function backgroundWait(ms: number): number {
  return ms + 200 * databaseRttMs();
}

export interface Frame {
  type: string;
  [key: string]: any;
}

/** A client of a conversation's room over a real WebSocket, with the frames it received in order. */
export interface RoomClient {
  socket: WebSocket;
  frames: Frame[];
  /** the next frame of this type not yet taken (waits up to `ms`) */
  next(type: string, ms?: number): Promise<Frame>;
  send(frame: unknown): void;
  close(): Promise<void>;
}

export function joinRoom(socketUrl: string, key?: string): Promise<RoomClient> {
  const socket = new WebSocket(socketUrl, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  const frames: Frame[] = [];
  const taken = new Set<number>();
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as Frame);
    waiters.splice(0).forEach((wake) => wake());
  });
  const client: RoomClient = {
    socket,
    frames,
    next(type, ms = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no "${type}" frame within ${ms} ms; got ${JSON.stringify(frames)}`)),
          backgroundWait(ms),
        );
        const look = () => {
          const index = frames.findIndex((frame, i) => !taken.has(i) && frame.type === type);
          if (index >= 0) {
            taken.add(index);
            clearTimeout(timer);
            resolve(frames[index]!);
          } else waiters.push(look);
        };
        look();
      });
    },
    send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    close: () =>
      new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      }),
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_request, response) =>
      reject(Object.assign(new Error(`join refused: ${response.statusCode}`), { status: response.statusCode })),
    );
    socket.once('error', reject);
  });
}

/** Polls until `check` returns a value other than undefined (or throws after `ms`, stretched by the database's distance: `backgroundWait`). */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + backgroundWait(ms);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
