import { z } from 'zod';

/** A file's name as it is shown and downloaded: no path, no control characters. */
export const filenameSchema = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !/[\/\\\u0000-\u001f\u007f]/.test(name), 'no slashes or control characters');

/** A file body as the platform's client sends it: its FileResponse (`{url, params, file}`), `{file}`, or the bare file; the file is what counts. */
export function fileOfResponse<T extends z.ZodType>(file: T) {
  return z.preprocess(
    (body) =>
      body !== null &&
      typeof body === 'object' &&
      'file' in body &&
      typeof (body as { file: unknown }).file === 'object'
        ? (body as { file: unknown }).file
        : body,
    file,
  );
}
