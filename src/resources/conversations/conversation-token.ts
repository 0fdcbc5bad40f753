const LIMIT = 10n ** 24n;

/**
 * A conversation's token: 24 uniformly random decimal digits (about 80 bits). It names the
 * room and opens the history publicly, so it must not be guessable; it is all digits because
 * the spec declares the history path parameter an integer.
 */
export function newConversationToken(): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(10));
    const value = bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
    if (value < LIMIT) return value.toString().padStart(24, '0');
  }
}

export const CONVERSATION_TOKEN = /^\d{24}$/;
