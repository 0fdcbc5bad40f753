import { sql, type SQL } from 'drizzle-orm';
import { happinessSurveys, tickets } from '../../db/schema';
import type { WriteContext } from '../../engine';

/** How long a survey's link takes answers. */
export const SURVEY_DAYS = 30;

/**
 * A survey for the teammate reply that solved a ticket, when its inbox asks for them
 * (`happinessRatingEnabled`): recorded with the reply, the ticket's `happinessSurveySentAt` set.
 * Its link (`surveyLink`) goes out with the reply's mail.
 */
export async function surveyOnSolvingReply(
  { tx, who }: WriteContext,
  ticketId: number,
  messageId: number,
): Promise<void> {
  await tx.execute(surveyStatement(who, ticketId, sql`${messageId}::int`, sql`true`));
}

/**
 * `surveyOnSolvingReply` as one statement, to run or to send in a batch (the reply's id as SQL),
 * where `also` holds too (over the ticket `t`: its status changed by the write).
 */
export function surveyStatement(who: WriteContext['who'], ticketId: number, messageId: SQL, also: SQL): SQL {
  return sql`
    WITH wanted AS (
      SELECT t.id FROM tickets t JOIN inboxes i ON i.id = t.inbox_id JOIN ticket_statuses s ON s.id = t.status_id
       WHERE t.id = ${ticketId} AND t.installation_id = ${who.installationId} AND i.happiness_rating_enabled AND s.code = 'solved' AND ${also}),
    survey AS (
      INSERT INTO ${happinessSurveys} (installation_id, ticket_id, message_id, expires_at)
      SELECT ${who.installationId}::int, id, ${messageId}, now() + make_interval(days => ${SURVEY_DAYS}) FROM wanted RETURNING ticket_id)
    UPDATE ${tickets} SET happiness_survey_sent_at = now() WHERE id IN (SELECT ticket_id FROM survey)`;
}
