import { z } from 'zod';
import { EVERYONE } from '../../auth/access';
import { happinessRatingOptions, happinessRatings, inboxes, tickets, users } from '../../db/schema';
import { AUDIT_SET, defineResource, referenceField } from '../../engine';
import { includedUsers } from '../users/user-shape';
import { ofVisibleTicket } from '../tickets/ticket-visibility';

/** Customers' ratings of tickets (`/v2/happinessratings.json`): read only; customers write them through the survey. */
export const happinessRatingsResource = defineResource({
  type: 'happinessratings',
  singular: 'happinessrating',
  title: { one: 'HappinessRating', many: 'HappinessRatings', group: 'HappinessRatings' },
  table: happinessRatings,
  fields: {
    ticket: referenceField(happinessRatings.ticketId, { table: tickets, type: 'tickets' }, { readOnly: true }),
    option: referenceField(
      happinessRatings.optionId,
      { table: happinessRatingOptions, type: 'happinessratingoptions' },
      { readOnly: true },
    ),
    score: {
      column: happinessRatings.score,
      schema: z.number().int().meta({ description: "the option's score when it was chosen" }),
      readOnly: true,
    },
    comment: { column: happinessRatings.comment, schema: z.string(), readOnly: true },
    agent: referenceField(happinessRatings.agentId, { table: users, type: 'users' }, { readOnly: true }),
    inbox: referenceField(happinessRatings.inboxId, { table: inboxes, type: 'inboxes' }, { readOnly: true }),
  },
  filter: [...AUDIT_SET, 'agent', 'inbox', 'option', 'score', 'ticket'],
  relations: { users: includedUsers() },
  access: { read: EVERYONE, write: [] },
  // a rating is seen by whoever sees its ticket
  scope: ofVisibleTicket(happinessRatings.ticketId),
  operations: ['list', 'get'],
});
