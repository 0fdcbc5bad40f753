import { requireOperator } from '../auth/operator';
import { errorResponse, jsonResponse } from '../http/responses';
import { defineRoute } from '../http/route';
import { log } from '../lib/log';
import { OPERATOR_NOTE, OPERATOR_SECURITY, operatorRefusals } from './operator-route';
import { deadLetterBody } from './record';
import { params, resolve } from './resolve-dead-letter';

/**
 * `POST /operator/deadletters/{id}/discard.json`: sets an open dead letter aside without sending
 * it (a message no consumer should run again): it leaves the open ones, and `/health`'s count.
 */
export const discardDeadLetterRoute = defineRoute(
  {
    method: 'post',
    path: '/operator/deadletters/{id}/discard.json',
    tag: 'Service',
    operationId: 'discardDeadLetter',
    public: true,
    security: OPERATOR_SECURITY,
    middleware: [requireOperator],
    summary: 'Set a dead letter aside',
    description: `Marks an open dead letter discarded: its message is not sent again, and it no longer counts in \`/health\`'s backlog. Kept, to be read. Once replayed or discarded it is a 409. ${OPERATOR_NOTE}`,
    request: { params },
    // another one: the first was replayed
    example: { params: { id: 2 } },
    responses: {
      200: jsonResponse('the dead letter, now discarded', deadLetterBody),
      ...operatorRefusals,
      409: errorResponse('replayed or discarded already'),
    },
  },
  async (c) => {
    const { id } = c.req.valid('param');
    const { record } = await resolve(c.var.db, id, 'discarded_at');
    log('info', 'dead letters: discarded', {
      deadLetterId: id,
      queue: record.queue,
      kind: record.kind,
      installationId: record.installationId,
    });
    return c.json({ deadLetter: record }, 200);
  },
);
