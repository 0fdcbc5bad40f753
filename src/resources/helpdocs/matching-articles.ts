import { sql, type SQL } from 'drizzle-orm';

/**
 * Words too common to say what a message is about: left out of the search an AI answer starts
 * from, so "I have a problem with my order" looks for `problem` and `order`, not `have`.
 */
const COMMON_WORDS = [
  'about', 'after', 'again', 'also', 'been', 'before', 'being', 'cannot', 'could', 'dear', 'does', 'doing', 'from',
  'have', 'hello', 'help', 'here', 'just', 'know', 'like', 'many', 'more', 'much', 'need', 'only', 'other', 'please',
  'regards', 'should', 'some', 'still', 'than', 'thank', 'thanks', 'that', 'their', 'them', 'then', 'there', 'these',
  'they', 'this', 'want', 'were', 'what', 'when', 'where', 'which', 'while', 'will', 'with', 'would', 'your', 'yours',
]; // prettier-ignore

/** How many words of a message the search looks for at most. */
const MAX_WORDS = 40;

/** An article as an AI prompt carries it. */
export interface PromptArticle {
  id: number;
  title: string;
  /** its contents as text, cut to `ARTICLE_CHARS` */
  text: string;
}

/** How much of an article's contents reaches the model. */
export const ARTICLE_CHARS = 3_000;

/**
 * The installation's published help-doc articles that best match `text` (SQL: a message read in
 * the same statement), as a JSON array of `PromptArticle`, best first: the help centre's own
 * full-text search (the articles' search vector, `ts_rank`, then popularity), asked for any of
 * the message's first 40 different words of four letters or more that are not `COMMON_WORDS`. Articles of live sites
 * only; `publicOnly` keeps those a public site shows (not private, the site public), for an
 * answer a visitor reads. A scalar subquery: it adds no round trip to the statement it is in.
 */
export function matchingArticlesSql(
  installationId: number,
  text: SQL,
  options: { limit: number; publicOnly: boolean },
): SQL {
  const common = sql`ARRAY[${sql.join(
    COMMON_WORDS.map((w) => sql`${w}`),
    sql`, `,
  )}]::text[]`;
  return sql`(
    WITH words AS (
      SELECT string_agg(w, ' or ') AS query FROM (
        SELECT w FROM regexp_split_to_table(lower(coalesce(${text}, '')), '[^[:alnum:]]+') WITH ORDINALITY AS split(w, n)
        WHERE length(w) >= 4 AND NOT (w = ANY (${common}))
        GROUP BY w ORDER BY min(n) LIMIT ${MAX_WORDS}
      ) first_words
    ), q AS (SELECT websearch_to_tsquery('simple', words.query) AS q FROM words WHERE words.query IS NOT NULL)
    SELECT coalesce(json_agg(json_build_object('id', m.id, 'title', m.title, 'text', m.text) ORDER BY m.rank DESC, m.popularity DESC, m.id), '[]'::json)
    FROM (
      SELECT a.id, a.title, a.popularity, ts_rank(a.search_vector, q.q) AS rank,
             left(btrim(regexp_replace(regexp_replace(a.contents, '<[^>]*>', ' ', 'g'), '\\s+', ' ', 'g')), ${ARTICLE_CHARS}) AS text
      FROM q JOIN helpdoc_articles a ON a.search_vector @@ q.q
      JOIN helpdocs h ON h.id = a.helpdoc_id AND h.state = 'active'
      WHERE a.installation_id = ${installationId} AND a.state = 'active' AND a.status = 'published'
        ${options.publicOnly ? sql`AND NOT a.is_private AND h.public_site_enabled` : sql``}
      ORDER BY rank DESC, a.popularity DESC, a.id
      LIMIT ${options.limit}
    ) m)`;
}
