// A webhook receiver on loopback for the tests, and the signature a delivery carries.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  answered: number;
}

/** A receiver on loopback: answers each request with the next status of `statuses` (the last one repeats); `hang` never answers. */
export function receiver(statuses: (number | 'hang')[] = [200]) {
  const requests: Received[] = [];
  let server: Server;
  const started = new Promise<string>((resolve) => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const status = statuses[Math.min(requests.length, statuses.length - 1)]!;
        requests.push({
          headers: request.headers,
          body,
          json: JSON.parse(body),
          answered: status === 'hang' ? 0 : status,
        });
        if (status !== 'hang') response.writeHead(status).end('ok');
      });
    });
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`));
  });
  return {
    requests,
    url: started,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const TOKEN = 'a-signing-token-of-some-length';
export const sign = (text: string, token = TOKEN) => createHmac('sha256', token).update(text).digest('hex');
