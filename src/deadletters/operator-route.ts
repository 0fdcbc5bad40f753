import { errorResponse } from '../http/responses';

/**
 * What every operator route declares beside `public: true` (no installation's credential is
 * taken) and its guard (`requireOperator`, src/auth/operator.ts): the operator token as a bearer
 * token, and the refusals of that guard.
 */
export const OPERATOR_SECURITY: { bearer: string[] }[] = [{ bearer: [] }];

export const operatorRefusals = {
  401: errorResponse("no operator token, or not the deployment's `OPERATOR_TOKEN` (with `WWW-Authenticate`)"),
  403: errorResponse('the operator routes are off: no `OPERATOR_TOKEN` is set'),
};

export const OPERATOR_NOTE =
  "For the service's operators: send the deployment's operator token (the `OPERATOR_TOKEN` secret) as `Authorization: Bearer <token>`; an installation's API key is refused (docs/operations.md, \"Dead letters\").";
