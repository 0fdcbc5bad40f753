import { sql, type SQL } from 'drizzle-orm';

/**
 * Whether the conversation message `m` (its alias) is a teammate's, live: an agent's, or an
 * answer an agent's AI integration sent `as: ai` (it names the agent). The form's assistant's
 * answers (author `ai`, no user) and the room's notices are not.
 */
export const teammateWrote = (m: SQL): SQL =>
  sql`${m}.state = 'active' AND (${m}.author = 'agent' OR (${m}.author = 'ai' AND ${m}.user_id IS NOT NULL))`;
