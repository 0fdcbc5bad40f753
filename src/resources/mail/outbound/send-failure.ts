/**
 * How a failed send is taken, by the code Email Service's binding throws with (its Workers API
 * page lists them): a limit or an outage passes (tried again after a backoff); a message the
 * service refuses, a sender not set up or a suppressed recipient will fail the same way every
 * time (the entry is failed at once). A failure with no code we know (a network error, a code
 * added since) is taken as passing: the tries are bounded anyway (`MAX_ATTEMPTS`).
 */
const TRANSIENT = new Set(['E_RATE_LIMIT_EXCEEDED', 'E_DAILY_LIMIT_EXCEEDED', 'E_INTERNAL_SERVER_ERROR']);
const PERMANENT = new Set([
  'E_VALIDATION_ERROR',
  'E_FIELD_MISSING',
  'E_TOO_MANY_RECIPIENTS',
  'E_TOO_MANY_ATTACHMENTS',
  'E_CONTENT_TOO_LARGE',
  'E_SENDER_NOT_VERIFIED',
  'E_SENDER_DOMAIN_NOT_AVAILABLE',
  'E_RECIPIENT_NOT_ALLOWED',
  'E_RECIPIENT_SUPPRESSED',
  'E_DELIVERY_FAILED',
  'E_HEADER_NOT_ALLOWED',
  'E_HEADER_USE_API_FIELD',
  'E_HEADER_VALUE_INVALID',
  'E_HEADER_VALUE_TOO_LONG',
  'E_HEADER_NAME_INVALID',
  'E_HEADERS_TOO_LARGE',
  'E_HEADERS_TOO_MANY',
]);

export interface SendFailure {
  permanent: boolean;
  /** what the entry's `emailError` says: the code and the service's message, never more than a line */
  reason: string;
}

export function sendFailureOf(error: unknown): SendFailure {
  const code =
    error !== null && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string'
      ? (error as { code: string }).code
      : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const reason = `${code ? `${code}: ` : ''}${message}`.replace(/\s+/g, ' ').slice(0, 500);
  return { permanent: code !== undefined && PERMANENT.has(code) && !TRANSIENT.has(code), reason };
}
