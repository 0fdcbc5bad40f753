import { z } from 'zod';
import { EDIT_METHODS } from '../../db/schema';
import { referenceInput } from '../../engine';
import { idValue } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { MAX_FILES_PER_ENTRY } from '../files/attach';
import { addressList } from './thread-entry';

const addresses = addressList.nullable();

/** The teammate an entry is written as: `{"id": 7}`, `7` or `{"id": "7"}`; null is the caller. */
const teammateInput = z.union([
  idValue,
  z
    .object({
      id: idValue,
      type: z
        .union([z.literal('users'), z.literal('')])
        .nullable()
        .optional(),
      meta: z.unknown().optional(),
    })
    .transform((ref) => ref.id),
]);

/** A reply or a note as the platform's client sends it: bare, with what it reads back accepted and ignored. */
export const entryBody = writableRecord(
  {
    message: z.string().min(1).max(1_000_000),
    threadType: z.enum(['message', 'note']).optional(),
    editMethod: z.enum(EDIT_METHODS).optional(),
    status: referenceInput('ticketstatuses')
      .optional()
      .meta({ description: "changes the ticket's status in the same transaction" }),
    cc: addresses.optional(),
    bcc: addresses.optional(),
    isPinned: z.boolean().optional(),
    isDraft: z.boolean().optional().meta({ description: 'a draft is not sent and not counted until it is' }),
    mentions: z
      .array(referenceInput('users'))
      .max(50)
      .optional()
      .meta({ description: 'teammates to mention: they follow the ticket from then on' }),
    files: z
      .array(referenceInput('files'))
      .max(MAX_FILES_PER_ENTRY)
      .optional()
      .meta({ description: `confirmed uploads to attach (POST /v2/files/ref.json), at most ${MAX_FILES_PER_ENTRY}` }),
    // null is what an entry a teammate wrote reads back as
    customer: referenceInput('customers').nullable().optional().meta({
      description:
        "the ticket's customer, to write the customer's reply (a channel of the team's own): a reply to a waiting or solved ticket makes it active; null: the caller's own entry",
    }),
    aiDraft: referenceInput('aidrafts').optional().meta({
      description:
        "the AI draft (`POST /v2/tickets/{id}/aidrafts.json`) this teammate's reply was sent from, as it is or edited: one unit of the AI allowance, once per draft, and how closely it kept to the draft counts in `/v2/ai/stats.json`",
    }),
    agent: teammateInput.nullable().optional().meta({
      description:
        'the teammate the entry is written as (its author, history line, events): an owner or admin names any active owner, admin or agent of the installation who sees the ticket; an agent only itself (another: 403); null: the caller',
    }),
  },
  ['ticket', 'htmlBody', 'textBody', 'viewedByCustomerAt', 'assigningUser', 'contact', 'delayed'],
).meta({ id: 'MessageCreate' });

export type EntryBody = z.infer<typeof entryBody>;
