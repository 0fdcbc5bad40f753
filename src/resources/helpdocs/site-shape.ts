import { helpdocs } from '../../db/schema';
import type { RecordShape } from '../../engine';

/** Help-docs sites as a contact form includes them (`helpdocs`, the spec's name there). */
export const helpdocShape: RecordShape = {
  type: 'helpdocs',
  component: 'Helpdoc',
  table: helpdocs,
  properties: { name: helpdocs.name, url: helpdocs.url },
};
