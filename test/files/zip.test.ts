// GET /v2/tickets/{id}/files.zip: every file of a ticket's thread in one zip, streamed from R2
// through the Worker. The entries' names and bytes are read back with an independent reader
// (fflate) and each entry's CRC-32 checked; access is the single download's; a ticket of
// ~150 MB arrives whole.
import { createHash, randomBytes } from 'node:crypto';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SeededInstallation } from '../../scripts/seed';
import { api } from '../support/api';
import { checkAgainstContract } from '../support/contract';
import { newInstallation, rows } from '../support/db';
import { expectError } from '../support/errors';
import { uploadedFile } from '../support/files';
import { MAX_FILE_BYTES } from '../../src/resources/files/upload-policy';

let site: SeededInstallation;
let owner: string;
let agent: string;
let inbox: number;

beforeAll(async () => {
  site = await newInstallation('files-zip');
  owner = site.users.owner.apiKey;
  agent = site.users.agent.apiKey;
  inbox = (await api('/v2/inboxes.json', { key: owner })).body.inboxes[0].id;
});

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes: Uint8Array) => {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
};

/** Each entry's name and CRC-32 as the central directory states them. */
function centralDirectory(zip: Uint8Array): Map<string, number> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const entries = new Map<string, number>();
  for (let at = 0; at + 46 <= zip.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue;
    const nameLength = view.getUint16(at + 28, true);
    entries.set(new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength)), view.getUint32(at + 16, true));
    at += 45 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

/** The zip of a ticket, fetched as a client does, its answer checked against the document. */
async function zipOf(ticket: number, key: string, path = `/v2/tickets/${ticket}/files.zip`) {
  const url = new URL(inject('workerUrl') + path);
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = response.headers.get('content-type')?.startsWith('application/json')
    ? new TextDecoder().decode(bytes)
    : `${bytes.length} bytes`;
  const body = text.startsWith('{') ? JSON.parse(text) : undefined;
  await checkAgainstContract('GET', url, response.status, response.headers, body, text);
  return { status: response.status, headers: response.headers, bytes, body, text };
}

async function ticketWith(files: number[], key = agent): Promise<number> {
  const created = await api('/v2/tickets.json', {
    method: 'POST',
    key,
    body: {
      subject: 'Files',
      inbox,
      customer: { email: 'zip@files.test' },
      message: 'attached',
      files: files.map((id) => ({ id })),
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.ticket.id;
}

describe('GET /v2/tickets/{id}/files.zip', () => {
  it("holds every file of the thread's live entries, byte for byte, under their names made safe and unique", async () => {
    const binary = randomBytes(300_000);
    const first = await uploadedFile(agent, 'first a', { filename: 'a.txt', mimeType: 'text/plain' });
    const second = await uploadedFile(agent, 'second a', { filename: 'a.txt', mimeType: 'text/plain' });
    const third = await uploadedFile(agent, 'third A', { filename: 'A.TXT', mimeType: 'text/plain' });
    const blob = await uploadedFile(agent, binary, { filename: 'data.bin', mimeType: 'application/octet-stream' });
    const ticket = await ticketWith([first, second]);
    expect(
      (
        await api(`/v2/tickets/${ticket}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'more', files: [{ id: third }, { id: blob }] },
        })
      ).status,
    ).toBe(201);
    // names stored before the upload rule existed, or by hand: never a path inside the zip
    const traversal = await uploadedFile(agent, 'evil', { filename: 'evil.txt', mimeType: 'text/plain' });
    const dots = await uploadedFile(agent, 'dots', { filename: 'dots.txt', mimeType: 'text/plain' });
    expect(
      (
        await api(`/v2/tickets/${ticket}/messages.json`, {
          method: 'POST',
          key: agent,
          body: { message: 'odd names', threadType: 'note', files: [{ id: traversal }, { id: dots }] },
        })
      ).status,
    ).toBe(201);
    await rows("UPDATE files SET name = '../../etc/passwd' WHERE id = $1", [traversal]);
    await rows("UPDATE files SET name = '..' WHERE id = $1", [dots]);
    // a file on a deleted entry is not the ticket's any more
    const gone = await uploadedFile(agent, 'gone', { filename: 'gone.txt', mimeType: 'text/plain' });
    const removed = await api(`/v2/tickets/${ticket}/messages.json`, {
      method: 'POST',
      key: agent,
      body: { message: 'to delete', files: [{ id: gone }] },
    });
    await rows("UPDATE ticket_messages SET state = 'deleted' WHERE id = $1", [removed.body.message.id]);

    const zip = await zipOf(ticket, agent);
    expect(zip.status, zip.text).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="ticket-${ticket}-files.zip"`);
    expect(Number(zip.headers.get('content-length'))).toBe(zip.bytes.length);
    const entries = unzipSync(zip.bytes);
    const expected: Record<string, Uint8Array> = {
      'a.txt': Buffer.from('first a'),
      'a (2).txt': Buffer.from('second a'),
      'A (3).TXT': Buffer.from('third A'),
      'data.bin': binary,
      '._._etc_passwd': Buffer.from('evil'),
      [`file-${dots}`]: Buffer.from('dots'),
    };
    expect(Object.keys(entries)).toEqual(Object.keys(expected));
    const crcs = centralDirectory(zip.bytes);
    for (const [name, bytes] of Object.entries(expected)) {
      expect(Buffer.from(entries[name]!).equals(Buffer.from(bytes)), name).toBe(true);
      expect(crcs.get(name), name).toBe(crc32(bytes));
    }
    // the platform's address layout serves it too
    expect((await zipOf(ticket, agent, `/desk/api/v2/tickets/${ticket}/files.zip`)).bytes).toEqual(zip.bytes);
  });

  it('answers an empty zip for a ticket without files', async () => {
    const ticket = await ticketWith([]);
    const zip = await zipOf(ticket, agent);
    expect(zip.status, zip.text).toBe(200);
    expect(zip.bytes.length).toBe(22);
    expect(unzipSync(zip.bytes)).toEqual({});
  });

  it("is a 404 for another installation's ticket, one the caller cannot see, and no ticket, naming nothing of it", async () => {
    const secret = await uploadedFile(owner, 'secret bytes', { filename: 'secret.txt', mimeType: 'text/plain' });
    const hidden = (
      await api('/v2/inboxes.json', {
        method: 'POST',
        key: owner,
        body: { name: 'Hidden', email: 'hidden@files-zip.test' },
      })
    ).body.inbox.id;
    const created = await api('/v2/tickets.json', {
      method: 'POST',
      key: owner,
      body: {
        subject: 'Hidden',
        inbox: hidden,
        customer: { email: 'zip@files.test' },
        message: 'x',
        files: [{ id: secret }],
      },
    });
    const ticket = created.body.ticket.id;
    const stranger = await newInstallation('files-zip-stranger');
    for (const key of [stranger.users.owner.apiKey, agent, site.users.collaborator.apiKey]) {
      const refused = await zipOf(ticket, key);
      expectError({ ...refused, text: refused.text }, 404, 'id');
      expect(refused.text).not.toContain('secret');
    }
    expectError(await zipOf(2_000_000_000, owner), 404, 'id');
    const seen = await zipOf(ticket, owner);
    expect(seen.status).toBe(200);
    expect(Object.keys(unzipSync(seen.bytes))).toEqual(['secret.txt']);
  });

  it('streams a ticket of about 150 MB whole: every byte, every entry as uploaded', async () => {
    const count = 6;
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    // each part's digests kept, not its bytes: the test's own memory stays near the answer's size
    const sources: Array<{ sha: string; crc: number }> = [];
    const ids: number[] = [];
    for (let index = 0; index < count; index++) {
      const bytes = randomBytes(MAX_FILE_BYTES);
      sources.push({ sha: sha(bytes), crc: crc32(bytes) });
      ids.push(
        await uploadedFile(agent, bytes, { filename: `part-${index}.bin`, mimeType: 'application/octet-stream' }),
      );
    }
    const ticket = await ticketWith(ids);

    const url = new URL(`${inject('workerUrl')}/v2/tickets/${ticket}/files.zip`);
    const response = await fetch(url, { headers: { authorization: `Bearer ${agent}` } });
    expect(response.status).toBe(200);
    await checkAgainstContract('GET', url, response.status, response.headers, undefined, 'binary');
    const chunks: Uint8Array[] = [];
    let received = 0;
    for await (const chunk of response.body!) {
      chunks.push(chunk);
      received += chunk.byteLength;
    }
    expect(received).toBe(Number(response.headers.get('content-length')));
    expect(received).toBeGreaterThan(count * MAX_FILE_BYTES);
    const zip = Buffer.concat(chunks.splice(0));
    const entries = unzipSync(zip);
    const crcs = centralDirectory(zip);
    expect(Object.keys(entries)).toHaveLength(count);
    for (const [index, source] of sources.entries()) {
      const name = `part-${index}.bin`;
      expect(sha(entries[name]!), name).toBe(source.sha);
      expect(crcs.get(name), name).toBe(source.crc);
    }
  }, 60_000);
});
