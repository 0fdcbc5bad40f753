import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface QueryParameterDoc {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
}

/** What the OpenAPI document says of one operation. Routes are declared with it (`http/route.ts`). */
export interface RouteDoc {
  method: HttpMethod;
  /** OpenAPI style: `/v2/companies/{id}.json` */
  path: string;
  summary: string;
  tag: string;
  /** no credential needed */
  public?: boolean;
  query?: QueryParameterDoc[];
  body?: { schema: z.ZodType; required: boolean; contentType?: string };
  responses: Record<number, ResponseDoc>;
}

/** Every route the app serves, in the order it was added. */
export const registry: RouteDoc[] = [];
