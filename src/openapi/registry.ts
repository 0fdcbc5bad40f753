import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/** Every operation the app serves, as `mountRoute` declared it: the OpenAPI document is made from it. */
export const registry = new OpenAPIRegistry();
