import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, real, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';

/** A reusable snippet (a reply template's code). Its own endpoints come later. */
export const codeTemplates = pgTable('code_templates', {
  ...auditColumns(),
  name: text('name').notNull(),
  body: text('body').notNull().default(''),
});

export const SENTIMENT_TONES = ['positive', 'neutral', 'negative'] as const;

/**
 * The sentiment a code template is meant for: the tone of the customer messages it answers,
 * and how sure the analysis must be before it is suggested. One per template.
 */
export const codeTemplateSentiments = pgTable(
  'code_template_sentiments',
  {
    ...auditColumns(),
    codeTemplateId: integer('code_template_id')
      .notNull()
      .references(() => codeTemplates.id),
    tone: text('tone', { enum: SENTIMENT_TONES }).notNull().default('neutral'),
    threshold: real('threshold').notNull().default(0.5),
    enabled: boolean('enabled').notNull().default(true),
  },
  (t) => [
    uniqueIndex('code_template_sentiments_template').on(t.codeTemplateId),
    check('code_template_sentiments_threshold', sql`${t.threshold} BETWEEN 0 AND 1`),
  ],
);
