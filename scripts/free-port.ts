import net from 'node:net';

/** A port on 127.0.0.1 nothing listens on now: `preferred` when it is free, else any. */
export function freePort(preferred = 0): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(freePort(0)));
    probe.listen(preferred, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
