import { AGENTS, EVERYONE } from '../../auth/access';
import { tags } from '../../db/schema';
import { AUDIT_SET, defineResource } from '../../engine';
import { colorField, nameField, uniqueName } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';

/** Labels on tickets. Any seated teammate may add one; names are unique per installation ignoring case. */
export const tagsResource = defineResource({
  type: 'tags',
  singular: 'tag',
  title: { one: 'Tag', many: 'Tags' },
  table: tags,
  fields: {
    name: nameField(tags.name),
    color: colorField(tags.color),
  },
  filter: [...AUDIT_SET, 'name', 'color'],
  relations: { users: includedUsers() },
  constraints: uniqueName('tags_installation_name_key', 'tag', 'a tag'),
  access: { read: EVERYONE, write: AGENTS },
  examples: {
    create: { name: 'refund', color: '#5319e7' },
    update: { color: '#0e8a16' },
  },
});
