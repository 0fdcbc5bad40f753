import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { happinessRatingOptions } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { displayOrderField, nameField } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

/**
 * What a customer may answer the satisfaction survey with (`/v2/happinessratingoptions.json`):
 * a name and a score. Every installation starts with Great (3), Okay (2) and Not good (1).
 */
export const happinessRatingOptionsResource = defineResource({
  type: 'happinessratingoptions',
  singular: 'happinessratingoption',
  title: { one: 'HappinessRatingOption', many: 'HappinessRatingOptions', group: 'HappinessRatings' },
  table: happinessRatingOptions,
  fields: {
    name: nameField(happinessRatingOptions.name),
    score: {
      column: happinessRatingOptions.score,
      schema: z.number().int().min(-100).max(100).meta({ description: 'what the answer is worth in the summaries' }),
      required: true,
    },
    displayOrder: displayOrderField(happinessRatingOptions.displayOrder),
  },
  filter: [...AUDIT_SET, 'displayOrder', 'name', 'score'],
  defaultOrderBy: 'displayOrder',
  relations: { users: includedUsers() },
  constraints: {
    happiness_rating_options_name_key: {
      source: 'happinessratingoption.name',
      detail: 'an option with this name already exists',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Delighted', score: 5 },
    update: { displayOrder: 1 },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
});
