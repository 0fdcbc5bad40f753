import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import {
  CONTACT_FORM_POSITIONS,
  CONTACT_FORM_THEMES,
  contactFormHelpdocArticles,
  contactFormHelpdocs,
  contactForms,
  inboxes,
} from '../../db/schema';
import { AUDIT_SET, defineResource, manyToMany, referencedBy, referenceField, shapeOf } from '../../engine';
import { inboxShape } from '../inboxes/inbox-shape';
import { includedUsers } from '../users/user-shape';
import { newFormToken } from './form-token';
import { helpdocArticlesResource } from '../helpdocs/articles.resource';
import { helpdocShape } from '../helpdocs/site-shape';

/** `#RRGGBB`, stored lower case. */
const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #RRGGBB, e.g. #3b82f6')
  .transform((color) => color.toLowerCase());

/** What the server sets on a new form: its public token. */
const newFormValues = () => ({ token: newFormToken() });

export const contactFormsResource = defineResource({
  type: 'contactforms',
  singular: 'contactform',
  title: { one: 'ContactForm', many: 'ContactForms' },
  table: contactForms,
  fields: {
    name: { column: contactForms.name, schema: z.string().trim().min(1).max(255), required: true },
    inbox: referenceField(contactForms.inboxId, { table: inboxes, type: 'inboxes' }),
    inboxFieldName: { column: contactForms.inboxFieldName, schema: z.string().trim().max(255).nullable() },
    accentColor: { column: contactForms.accentColor, schema: hexColor },
    triggerColor: { column: contactForms.triggerColor, schema: hexColor },
    theme: { column: contactForms.theme, schema: z.enum(CONTACT_FORM_THEMES) },
    position: { column: contactForms.position, schema: z.enum(CONTACT_FORM_POSITIONS) },
    isLiveChatEnabled: { column: contactForms.isLiveChatEnabled, schema: z.boolean() },
    liveChatWelcomeMessage: { column: contactForms.liveChatWelcomeMessage, schema: z.string().max(1000).nullable() },
    aiAssistant: {
      column: contactForms.aiAssistant,
      schema: z.boolean().meta({
        description:
          "the AI assistant answers the form's chats from the public help centre when no teammate has within `aiWaitSeconds` (docs/ai.md)",
      }),
    },
    aiWaitSeconds: {
      column: contactForms.aiWaitSeconds,
      schema: z
        .number()
        .int()
        .min(0)
        .max(3600)
        .meta({ description: "how long a visitor's message waits for a teammate before the assistant answers it" }),
    },
  },
  // The token is the server's: read-only, so a computed property (readable, filterable, ignored in bodies).
  computed: {
    token: {
      expr: sql`${contactForms.token}`,
      type: 'string',
      schema: z.string().meta({ description: "the form's public token: the chat widget's credential" }),
    },
  },
  filter: [
    ...AUDIT_SET,
    'accentColor',
    'aiAssistant',
    'aiWaitSeconds',
    'inboxFieldName',
    'isLiveChatEnabled',
    'liveChatWelcomeMessage',
    'name',
    'position',
    'theme',
    'token',
    'triggerColor',
  ],
  relations: {
    helpdocs: manyToMany({
      name: 'helpdocs',
      target: helpdocShape,
      through: contactFormHelpdocs,
      parentKey: contactFormHelpdocs.contactFormId,
      targetKey: contactFormHelpdocs.helpdocId,
    }),
    helpdocarticles: manyToMany({
      name: 'helpdocarticles',
      target: shapeOf(helpdocArticlesResource),
      through: contactFormHelpdocArticles,
      parentKey: contactFormHelpdocArticles.contactFormId,
      targetKey: contactFormHelpdocArticles.articleId,
    }),
    inboxes: referencedBy({ target: inboxShape, columns: () => [contactForms.inboxId] }),
    users: includedUsers(),
  },
  constraints: {
    contact_forms_token_key: { source: 'contactform.token', detail: 'token collision; send the request again' },
  },
  // A form is the helpdesk's public entry point (and, with live chat, its chat widget): settings, so admins change it.
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: {
      name: 'Website chat',
      inbox: { id: 1 },
      isLiveChatEnabled: true,
      liveChatWelcomeMessage: 'Hi! How can we help?',
    },
    update: { accentColor: '#0b5fff' },
  },
  onCreate: newFormValues,
  planned: { onCreate: newFormValues },
});
