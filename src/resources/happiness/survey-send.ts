import { eq, sql } from 'drizzle-orm';
import { happinessSurveys, tickets } from '../../db/schema';
import type { WriteContext } from '../../engine';

/** How long a survey's link takes answers. */
export const SURVEY_DAYS = 30;

/**
 * A survey for the teammate reply that solved a ticket, when its inbox asks for them
 * (`happinessRatingEnabled`): recorded with the reply, the ticket's `happinessSurveySentAt` set.
 * Its link (`surveyLink`) goes out with the reply's mail.
 */
export async function surveyOnSolvingReply({ tx, who }: WriteContext, ticketId: number, messageId: number): Promise<void> {
  const { rows } = await tx.execute(sql`
    SELECT i.happiness_rating_enabled AND s.code = 'solved' AS wanted
      FROM tickets t JOIN inboxes i ON i.id = t.inbox_id JOIN ticket_statuses s ON s.id = t.status_id
     WHERE t.id = ${ticketId} AND t.installation_id = ${who.installationId}`);
  if (rows[0]?.wanted !== true) return;
  await tx.insert(happinessSurveys).values({ installationId: who.installationId, ticketId, messageId, expiresAt: sql`now() + make_interval(days => ${SURVEY_DAYS})` });
  await tx.update(tickets).set({ happinessSurveySentAt: sql`now()` }).where(eq(tickets.id, ticketId));
}

