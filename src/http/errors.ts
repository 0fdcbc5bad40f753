import type { ContentfulStatusCode } from 'hono/utils/http-status';

/**
 * Every `code` an error entry carries: the document declares exactly these, so an answer with
 * another fails the contract check, and an entry written with another does not compile.
 */
export const ERROR_CODES = [
  'invalid',
  'unauthorized',
  'paymentRequired',
  'forbidden',
  'notFound',
  'conflict',
  'unprocessable',
  'tooLarge',
  'unsupportedMediaType',
  'tooManyRequests',
  'upgradeRequired',
  'badGateway',
  'gatewayTimeout',
  'notConfigured',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One entry of the shared error body: `{"errors": [{"code", "source", "detail"}]}`. */
export interface ErrorEntry {
  code: ErrorCode;
  source?: string;
  detail: string;
}

/**
 * An error a client caused or may act on. Thrown anywhere below a route; the app's error
 * handler turns it into the one error body. Anything else thrown becomes a bare 500.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly errors: ErrorEntry[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => `${e.source ?? ''} ${e.detail}`.trim()).join('; '));
  }

  static invalid(source: string, detail: string): ApiError {
    return new ApiError(400, [{ code: 'invalid', source, detail }]);
  }

  static notFound(source: string, detail = 'not found'): ApiError {
    return new ApiError(404, [{ code: 'notFound', source, detail }]);
  }

  static conflict(source: string, detail: string): ApiError {
    return new ApiError(409, [{ code: 'conflict', source, detail }]);
  }

  static unauthorized(detail: string): ApiError {
    return new ApiError(401, [{ code: 'unauthorized', detail }], {
      'WWW-Authenticate': 'Bearer realm="helpdesk", Basic realm="helpdesk"',
    });
  }

  static forbidden(detail: string): ApiError {
    return new ApiError(403, [{ code: 'forbidden', detail }]);
  }
}
