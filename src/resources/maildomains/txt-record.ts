/** Where a mail domain's proof is published, and what it says (`docs/resources/maildomains.md`). */
export const TXT_PREFIX = '_helpdesk-verification';
export const TXT_VALUE_PREFIX = 'helpdesk-verification=';

export const txtRecordName = (domain: string) => `${TXT_PREFIX}.${domain}`;
export const txtRecordValue = (token: string) => `${TXT_VALUE_PREFIX}${token}`;

/** A claim's token: 128 random bits in hex, so no installation can publish another's proof by guessing it. */
export function newVerificationToken(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
