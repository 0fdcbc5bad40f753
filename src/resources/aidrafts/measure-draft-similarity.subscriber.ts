import { sql } from 'drizzle-orm';
import type { Subscriber } from '../../events/subscriber';
import { textSimilarity } from '../../lib/text-similarity';

/**
 * A teammate's reply sent from an AI draft: how closely it kept to the draft, in the entry's
 * `aiSimilarity`, which `/v2/ai/stats.json` counts. Measured here rather than in the reply's
 * write, which does not read the draft's text (one round trip); once, as a second delivery finds
 * it measured.
 */
export const measureDraftSimilarity: Subscriber = {
  name: 'aidrafts.similarity',
  does: "measures how closely a reply sent from an AI draft kept to it (the entry's `aiSimilarity`, docs/ai.md)",
  on: [{ recordType: 'messages', kinds: ['created'] }],
  async handle(event, { tx }) {
    // only a reply sent from a draft says so in its event: the others cost no read
    if (!event.data.aiDraft) return;
    const { rows } = await tx.execute(sql`
      SELECT d.text_body AS draft, m.text_body AS reply FROM ticket_messages m JOIN ai_drafts d ON d.id = m.ai_draft_id
      WHERE m.id = ${event.recordId} AND m.installation_id = ${event.installationId} AND m.ai_similarity IS NULL`);
    const row = rows[0] as { draft: string; reply: string } | undefined;
    if (!row) return;
    await tx.execute(
      sql`UPDATE ticket_messages SET ai_similarity = ${textSimilarity(row.draft, row.reply)} WHERE id = ${event.recordId}`,
    );
  },
};
