import { boolean, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { auditColumns } from './audit';
import { helpdocArticles, helpdocs } from './help-docs';
import { inboxes } from './inboxes';

export const CONTACT_FORM_THEMES = ['light', 'dark'] as const;
export const CONTACT_FORM_POSITIONS = ['bottom-right', 'bottom-left'] as const;

/** A form (and chat widget) customers reach the helpdesk through, addressed by its public token. */
export const contactForms = pgTable(
  'contact_forms',
  {
    ...auditColumns(),
    name: text('name').notNull(),
    token: text('token').notNull(),
    inboxId: integer('inbox_id').references(() => inboxes.id),
    inboxFieldName: text('inbox_field_name'),
    accentColor: text('accent_color').notNull().default('#3b82f6'),
    triggerColor: text('trigger_color').notNull().default('#3b82f6'),
    theme: text('theme', { enum: CONTACT_FORM_THEMES }).notNull().default('light'),
    position: text('position', { enum: CONTACT_FORM_POSITIONS }).notNull().default('bottom-right'),
    isLiveChatEnabled: boolean('is_live_chat_enabled').notNull().default(false),
    liveChatWelcomeMessage: text('live_chat_welcome_message'),
    /** The AI assistant answers the form's chats from the public help centre when no teammate has within `aiWaitSeconds`. */
    aiAssistant: boolean('ai_assistant').notNull().default(false),
    aiWaitSeconds: integer('ai_wait_seconds').notNull().default(30),
  },
  (t) => [uniqueIndex('contact_forms_token_key').on(t.token)],
);

export const contactFormHelpdocs = pgTable(
  'contact_form_helpdocs',
  {
    installationId: integer('installation_id').notNull(),
    contactFormId: integer('contact_form_id')
      .notNull()
      .references(() => contactForms.id),
    helpdocId: integer('helpdoc_id')
      .notNull()
      .references(() => helpdocs.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.contactFormId, t.helpdocId] })],
);

/** Help-docs articles a contact form suggests (its `helpdocarticles`). */
export const contactFormHelpdocArticles = pgTable(
  'contact_form_helpdoc_articles',
  {
    installationId: integer('installation_id').notNull(),
    contactFormId: integer('contact_form_id')
      .notNull()
      .references(() => contactForms.id),
    articleId: integer('article_id')
      .notNull()
      .references(() => helpdocArticles.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    createdBy: integer('created_by'),
  },
  (t) => [primaryKey({ columns: [t.contactFormId, t.articleId] })],
);
