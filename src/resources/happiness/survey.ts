import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Queryable } from '../../db/client';
import { isoTime } from '../../engine';
import { ApiError } from '../../http/errors';
import { textParam } from '../../http/params';
import { surveyOfToken } from './survey-token';

export const tokenParams = z.object({ token: textParam("the survey link's token").pipe(z.string().max(64)) });

export const surveySchema = z
  .object({
    ticket: z.object({ id: z.number().int(), subject: z.string() }),
    options: z.array(z.object({ id: z.number().int(), name: z.string(), score: z.number().int() })),
    rating: z.object({ option: z.number().int(), comment: z.string() }).nullable(),
    expiresAt: z.string(),
  })
  .meta({ id: 'HappinessSurvey' });

interface Survey {
  id: number;
  installationId: number;
  ticketId: number;
  expired: boolean;
}

/** The survey a token names; 404 for a token that names none (a forged or mistyped link). */
export async function surveyOf(
  env: Parameters<typeof surveyOfToken>[0],
  db: Queryable,
  token: string,
): Promise<Survey> {
  const id = await surveyOfToken(env, token);
  const { rows } =
    id === undefined
      ? { rows: [] }
      : await db.execute(
          sql`SELECT s.id, s.installation_id, s.ticket_id, s.expires_at <= now() AS expired FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id AND t.state = 'active' WHERE s.id = ${id}`,
        );
  if (!rows[0]) throw ApiError.notFound('token', 'no survey has this link');
  return {
    id: Number(rows[0].id),
    installationId: Number(rows[0].installation_id),
    ticketId: Number(rows[0].ticket_id),
    expired: rows[0].expired === true,
  };
}

/** What the survey asks and what was answered, as one statement (to read, or last in a batch): `surveyBody` makes the answer of its row. */
export const surveyRead = (survey: Survey) => sql`
    SELECT t.id, t.subject, ${isoTime(sql`s.expires_at`)} AS expires_at,
      coalesce((SELECT json_agg(json_build_object('id', o.id, 'name', o.name, 'score', o.score) ORDER BY o.display_order, o.id)
        FROM happiness_rating_options o WHERE o.installation_id = t.installation_id AND o.state = 'active'), '[]') AS options,
      (SELECT json_build_object('option', r.option_id, 'comment', r.comment) FROM happiness_ratings r WHERE r.ticket_id = t.id AND r.state = 'active') AS rating
      FROM happiness_surveys s JOIN tickets t ON t.id = s.ticket_id WHERE s.id = ${survey.id}`;

export function surveyBody(row: Record<string, unknown>) {
  return {
    survey: {
      ticket: { id: Number(row.id), subject: String(row.subject) },
      options: row.options as { id: number; name: string; score: number }[],
      rating: (row.rating as { option: number; comment: string } | null) ?? null,
      expiresAt: String(row.expires_at),
    },
  };
}
