import { z } from 'zod';
import { ADMINS, EVERYONE } from '../../auth/access';
import { businessHours, slas } from '../../db/schema';
import { AUDIT_SET, defineResource, referenceField } from '../../engine';
import { displayOrderField } from '../../lib/vocabulary-fields';
import { includedUsers } from '../users/user-shape';
import { slaChildren } from './sla-children';
import { releaseTickets } from './sla-tickets';

/**
 * Service-level policies (`/v2/slas.json`), as the platform's client writes them: the policy, and
 * its scopes, targets per priority and notifications as related records, in the body or under
 * `included` (the client's form). The first enabled policy in display order that matches a ticket
 * applies to it (`sla-policy.ts`). Admins write; every teammate reads.
 */
export const slasResource = defineResource({
  type: 'slas',
  singular: 'sla',
  title: { one: 'Sla', many: 'Slas', group: 'SLAs' },
  table: slas,
  fields: {
    name: { column: slas.name, schema: z.string().trim().min(1).max(255), required: true },
    description: { column: slas.description, schema: z.string().max(2000) },
    displayOrder: displayOrderField(slas.displayOrder),
    enabled: {
      column: slas.enabled,
      schema: z.boolean().meta({ description: 'a switched-off policy applies to no ticket' }),
    },
    businesshours: referenceField(slas.businesshoursId, { table: businessHours, type: 'businesshours' }),
  },
  filter: [...AUDIT_SET, 'businesshours', 'description', 'displayOrder', 'enabled', 'name'],
  defaultOrderBy: 'displayOrder',
  relations: { ...slaChildren, users: includedUsers() },
  includedWrites: Object.keys(slaChildren),
  // the platform's client sends the policy's thread references back
  ignored: ['threads'],
  constraints: {
    slas_installation_name_key: { source: 'sla.name', detail: 'a policy with this name already exists' },
    sla_ticket_priorities_sla_priority_key: {
      source: 'sla.slaticketpriorities',
      detail: 'the policy has targets for this priority already',
    },
  },
  access: { read: EVERYONE, write: ADMINS },
  examples: {
    create: { name: 'Gold customers', description: 'First reply within an hour', businesshours: { id: 1 } },
    update: { enabled: false },
  },
  operations: ['list', 'get', 'create', 'update', 'delete'],
  afterDelete: releaseTickets,
});
