import { z } from 'zod';
import { optionalText, webAddress } from '../../lib/field-schemas';
import {
  companyAddresses,
  companyCustomers,
  companyDomains,
  companyPhones,
  companySocialLinks,
  companyTimelogSettings,
  PHONE_TYPES,
  SOCIAL_LINK_TYPES,
} from '../../db/schema';
import { customerShape } from '../customers/customer-shape';
import { hasMany, hasOne, manyToMany } from '../../engine';
import type { RecordShape, WritableField } from '../../engine';

/**
 * The fields of a related record, and its shape built from them. `type` is every record's type
 * name, except a phone's: its `type` is its kind, as on the platform. A social link's kind is `linkType`.
 */
function related(type: string, component: string, table: RecordShape['table'], fields: Record<string, WritableField>) {
  const properties = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field.column]));
  return { shape: { type, table, properties, component } satisfies RecordShape, fields };
}

const addresses = related('addresses', 'Address', companyAddresses, {
  line1: { column: companyAddresses.line1, schema: optionalText(255) },
  line2: { column: companyAddresses.line2, schema: optionalText(255) },
  city: { column: companyAddresses.city, schema: optionalText(120) },
  region: { column: companyAddresses.region, schema: optionalText(120) },
  postalCode: { column: companyAddresses.postalCode, schema: optionalText(32) },
  country: { column: companyAddresses.country, schema: optionalText(120) },
});

const domains = related('domains', 'Domain', companyDomains, {
  name: {
    column: companyDomains.name,
    schema: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com'),
    required: true,
  },
});

const phones = related('phones', 'Phone', companyPhones, {
  number: { column: companyPhones.number, schema: z.string().trim().min(1).max(40), required: true },
  // A phone owns its `type`, its kind, as the platform's client decodes it (a string). `phones`,
  // the type name a reference to the phone reads with, and null say nothing of the kind.
  type: {
    column: companyPhones.type,
    schema: z
      .union([z.enum(PHONE_TYPES), z.literal('phones'), z.null()])
      .transform((kind) => (kind === 'phones' || kind === null ? undefined : kind)),
  },
  countryCode: { column: companyPhones.countryCode, schema: optionalText(8) },
  extension: { column: companyPhones.extension, schema: optionalText(16) },
});

const socialLinks = related('sociallinks', 'SocialLink', companySocialLinks, {
  linkType: { column: companySocialLinks.type, schema: z.enum(SOCIAL_LINK_TYPES) },
  url: { column: companySocialLinks.url, schema: webAddress, required: true },
});

const timelogSettings = related('timelogsettings', 'TimelogSetting', companyTimelogSettings, {
  billable: { column: companyTimelogSettings.billable, schema: z.boolean() },
  hourlyRate: {
    column: companyTimelogSettings.hourlyRate,
    // numeric(12,2): a string keeps cents exact on the way in
    schema: z
      .union([z.number().nonnegative().max(9_999_999_999.99), z.string().regex(/^\d{1,10}(\.\d{1,2})?$/)])
      .transform(String)
      .nullable(),
  },
  currency: {
    column: companyTimelogSettings.currency,
    schema: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR')
      .nullable(),
  },
});

/** The company's `includes` names, each readable through `includes` and writable through its property. */
export const companyRelations = {
  addresses: hasMany({ ...addresses, parentKey: companyAddresses.companyId }),
  customers: manyToMany({
    name: 'customers',
    target: customerShape,
    through: companyCustomers,
    parentKey: companyCustomers.companyId,
    targetKey: companyCustomers.customerId,
  }),
  domains: hasMany({ ...domains, parentKey: companyDomains.companyId }),
  phones: hasMany({ ...phones, parentKey: companyPhones.companyId }),
  sociallinks: hasMany({ ...socialLinks, parentKey: companySocialLinks.companyId }),
  timelogsettings: hasOne({ ...timelogSettings, parentKey: companyTimelogSettings.companyId }),
};
