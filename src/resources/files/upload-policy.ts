import { hashSecret } from '../../auth/secrets';

/** What an upload may be: documented in docs/resources/files.md. */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
export const UPLOAD_TTL_MINUTES = 60;
/** An unconfirmed upload is swept this long after it was asked for. */
export const UNCONFIRMED_TTL_HOURS = 24;
/** The bucket behind the FILES binding, as the upload form names it (`wrangler.toml`). */
export const BUCKET_NAME = 'helpdesk-files';
export const ALGORITHM = 'SHA256-ONE-TIME-TOKEN';

/** The object key of a file: its installation first, so the public upload url finds its tenant from the key alone. */
export function storageKey(installationId: number, fileId: number): string {
  const nonce = [...crypto.getRandomValues(new Uint8Array(9))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `i${installationId}/f${fileId}/${nonce}`;
}

/** The installation and file a key names; undefined for anything else. */
export function parseStorageKey(key: string): { installationId: number; fileId: number } | undefined {
  const match = /^i([1-9]\d{0,9})\/f([1-9]\d{0,9})\/[0-9a-f]{18}$/.exec(key);
  if (!match) return undefined;
  const [installationId, fileId] = [Number(match[1]), Number(match[2])];
  return installationId <= 2_147_483_647 && fileId <= 2_147_483_647 ? { installationId, fileId } : undefined;
}

/**
 * The form fields an upload carries, in the shape the platform's client posts (an S3 POST
 * policy's): the policy states key, type, size range and expiry; the signature is a one-time
 * random token bound to that policy. Only SHA-256 of (signature, policy) is stored, so neither a
 * database reader nor a client that changes the policy can upload.
 */
export async function uploadFields(
  key: string,
  contentType: string,
  expiresAt: Date,
): Promise<{ fields: Record<string, string>; tokenHash: string }> {
  const policy = btoa(
    JSON.stringify({
      expiration: expiresAt.toISOString(),
      conditions: [
        { bucket: BUCKET_NAME },
        { key },
        { 'Content-Type': contentType },
        ['content-length-range', 1, MAX_FILE_BYTES],
        { success_action_status: '201' },
      ],
    }),
  );
  const signature = [...crypto.getRandomValues(new Uint8Array(32))]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  const date = expiresAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return {
    fields: {
      'Content-Type': contentType,
      bucket: BUCKET_NAME,
      key,
      policy,
      success_action_status: '201',
      'x-amz-algorithm': ALGORITHM,
      'x-amz-credential': `${key.split('/')[0]}/${date.slice(0, 8)}/files`,
      'x-amz-date': date,
      'x-amz-signature': signature,
    },
    tokenHash: await uploadTokenHash(signature, policy),
  };
}

export const uploadTokenHash = (signature: string, policy: string) => hashSecret(`${signature}\n${policy}`);
