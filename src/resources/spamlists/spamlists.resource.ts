import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { SPAM_LIST_TYPES, spamLists } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { spamTerm } from './spam-term';

/**
 * Senders whose mail skips spam scoring (`whitelist`) or is refused (`blacklist`). A term is on
 * one list at most. As on the platform, the record's `type` is its list.
 */
export const spamListsResource = defineResource({
  type: 'spamlists',
  singular: 'spamlist',
  title: { one: 'SpamList', many: 'SpamLists' },
  table: spamLists,
  fields: {
    term: { column: spamLists.term, schema: spamTerm, required: true },
    type: {
      column: spamLists.listType,
      schema: z.enum(SPAM_LIST_TYPES).meta({ description: 'the list: `whitelist` or `blacklist`' }),
      required: true,
    },
  },
  filter: [...AUDIT_SET, 'term', 'type'],
  relations: { users: includedUsers() },
  constraints: {
    spam_lists_installation_term_key: { source: 'spamlist.term', detail: 'this term is already on a spam list' },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { term: 'cheap-watches.example', type: 'blacklist' },
    update: { type: 'whitelist' },
  },
});
