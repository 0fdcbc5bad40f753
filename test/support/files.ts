import { expect } from 'vitest';
import { api } from './api';
import { checkedFetch } from './contract';

/** Step one of the platform's upload as its client sends it: its FileResponse, with an empty form. */
export const fileRef = (key: string, file: Record<string, unknown>) =>
  api('/v2/files/ref.json', {
    method: 'POST',
    key,
    body: {
      params: { 'Content-Type': '', bucket: '', key: '', policy: '', success_action_status: '' },
      file: { type: 'attachment', ...file },
    },
  });

/** Step two as the client's Upload does it: every non-empty param, then the file. */
export async function uploadTo(
  answer: { url: string; params: Record<string, string> },
  bytes: Uint8Array | string,
  name = 'x.bin',
  override: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [field, value] of Object.entries({ ...answer.params, ...override }))
    if (value !== '') form.append(field, value);
  form.append('file', new Blob([bytes]), name);
  return checkedFetch(answer.url, { method: 'POST', body: form });
}

/** Step three: the confirmation. */
export const confirmFile = (key: string, id: number, body: unknown = { file: {} }) =>
  api(`/v2/files/${id}.json`, { method: 'PATCH', key, body });

/** A confirmed upload of these bytes, by the holder of `key`: its id. */
export async function uploadedFile(
  key: string,
  bytes: string | Uint8Array,
  file: Record<string, unknown> = { filename: 'notes.txt', mimeType: 'text/plain' },
): Promise<number> {
  const started = await fileRef(key, file);
  expect(started.status, started.text).toBe(201);
  expect((await uploadTo(started.body, bytes)).status).toBe(201);
  const done = await confirmFile(key, started.body.file.id);
  expect(done.status, done.text).toBe(200);
  return started.body.file.id;
}
