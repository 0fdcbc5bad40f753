import { and, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { CUSTOMER_CONTACT_TYPES, customerContacts, customers } from '../../db/schema';
import {
  hasMany,
  planOf,
  updateRecords,
  updateStatement,
  withPlan,
  type Parent,
  type WriteContext,
  type Writer,
} from '../../engine';
import { refuseWhen } from '../../db/refusal';
import type { Actor } from '../../auth/principal';
import type { Transaction } from '../../db/client';
import { ApiError } from '../../http/errors';
import { ignoredPaths, noteIgnored } from '../../http/ignored-properties';
import { idValue } from '../../http/params';
import { writableRecord } from '../../http/record-body';
import { emailAddress } from '../../lib/field-schemas';

type ContactType = (typeof CUSTOMER_CONTACT_TYPES)[number];

/** The record type of a customer contact's events (they read as type `contacts`, as chat visitors do). */
export const CONTACT_EVENTS = 'customercontacts';

/** A contact's value by its type: an email address, a handle, or a profile's address. */
const contactValue = z.string().trim().min(1).max(2048);

const VALUE_RULES: Record<ContactType, z.ZodType> = {
  email: emailAddress,
  twitter: z.string().regex(/^@?\w{1,15}$/, 'must be a handle such as @acme'),
  facebook: z.string().max(2048),
  linkedin: z.string().max(2048),
};

const contactShape = {
  type: 'contacts',
  component: 'CustomerContact',
  table: customerContacts,
  // chat visitors read as `contacts` too: their events keep the two apart
  eventType: CONTACT_EVENTS,
  // A contact's `type` is its kind, as the platform's client reads it.
  properties: { type: customerContacts.type, value: customerContacts.value, isMain: customerContacts.isMain },
};

const generic = hasMany({
  shape: contactShape,
  parentKey: customerContacts.customerId,
  fields: {
    type: { column: customerContacts.type, schema: z.enum(CUSTOMER_CONTACT_TYPES) },
    value: { column: customerContacts.value, schema: contactValue, required: true },
    isMain: { column: customerContacts.isMain, schema: z.boolean() },
  },
});

/** An entry as the body has it: the platform's client sends new ones with `id: 0`. */
interface Entry {
  id?: number;
  type?: ContactType;
  value?: string;
  isMain?: boolean;
  delete?: boolean;
  meta?: { delete?: boolean } | null;
}

const isDeletion = (entry: Entry) => entry.delete === true || entry.meta?.delete === true;

const entrySchema = writableRecord({
  id: z.union([z.literal(0), idValue]).optional(),
  // `contacts`, the type name a bare reference reads with, and null say nothing of the kind.
  type: z.union([z.enum(CUSTOMER_CONTACT_TYPES), z.literal('contacts'), z.null()]).optional(),
  value: contactValue.optional(),
  isMain: z.boolean().optional(),
  delete: z.boolean().optional(),
  meta: z.looseObject({ delete: z.boolean().optional() }).nullable().optional(),
}).transform((entry): Entry => {
  const { id, type, ...rest } = entry;
  return noteIgnored(
    { ...rest, ...(id ? { id } : {}), ...(type && type !== 'contacts' ? { type } : {}) },
    ignoredPaths(entry),
  );
});

/**
 * A customer's contacts (`includes=contacts`), written through `contacts` or `included.contacts`:
 * an entry without an id (or with the client's `id: 0`) adds one, `{id, delete: true}` removes
 * one, `{id, ...}` changes one; a bare `{id: 0}` placeholder is skipped. Marking one contact main
 * unmarks the customer's other main contact of its type, with its event; the rules over the whole
 * set (at least one email, a main of each type, values unique) are `settleContacts`'s.
 */
export const contactsRelation = {
  ...generic,
  bodySchema: z.array(entrySchema).max(100).nullable(),
  write: withPlan(
    async function write(tx: Transaction, who: Actor, parent: Parent, value: unknown, source: string) {
      if (value === null) return;
      const entries = sentEntries(value);
      const stored = await storedContacts(tx, parent.id);
      checkValues(entries, stored, source);
      await unmarkOtherMains(tx, who, parent.id, entries, stored, source);
      await generic.write!(tx, who, parent, entries, source);
    },
    (db, who, parent, value, source, creating) => {
      if (value === null) return [];
      // an update's contacts checked against the stored ones before the batch (`checkContactsUpdate`)
      if (value instanceof CheckedContacts) {
        const { entries, unmark } = value;
        return [
          ...(unmark ? [unmarkStatement(db, who, parent.id, unmark)] : []),
          ...planOf(generic)!(db, who, parent, entries, source, false)!,
        ];
      }
      // a new customer's contacts need nothing looked up: no stored contact to check against or unmark
      if (!creating) return undefined;
      const entries = sentEntries(value);
      const none = new Map<number, StoredContact>();
      checkValues(entries, none, source);
      markedMain(entries, none, source);
      return planOf(generic)!(db, who, parent, entries, source, true);
    },
  ),
} satisfies typeof generic;

/** The main contacts of these types to unmark, all but the ones the entries name. */
interface Unmark {
  types: ContactType[];
  keep: number[];
}

/**
 * An update's contacts as `checkContactsUpdate` left them for the batch: checked against the
 * customer's stored contacts, and which main contacts lose the mark to the ones sent.
 */
class CheckedContacts {
  constructor(
    readonly entries: Entry[],
    readonly unmark: Unmark | undefined,
  ) {}
}

/** The customer's main contacts of these types, but the ones kept: what loses the mark to the contacts sent as main. */
function otherMains(customerId: number | SQL, { types, keep }: Unmark) {
  const others = keep.length ? sql`${customerContacts.id} NOT IN ${keep}` : sql`true`;
  const where = and(
    sql`${customerContacts.customerId} = ${customerId}`,
    eq(customerContacts.state, 'active'),
    eq(customerContacts.isMain, true),
    inArray(customerContacts.type, types),
    others,
  )!;
  return { table: customerContacts, type: CONTACT_EVENTS, where };
}

/** `unmarkOtherMains` as a statement of the batch, before the entries are written. */
function unmarkStatement(db: Writer, who: Actor, customerId: number | SQL, unmark: Unmark): SQL {
  return updateStatement(
    db,
    who,
    otherMains(customerId, unmark),
    { isMain: false },
    { isMain: customerContacts.isMain },
  );
}

/**
 * `beforeWrite` of an update sent as one batch (`planned.before`): where it sends `email` or
 * `contacts`, the customer's address and live contacts are read in one statement (a second
 * exchange, listed in docs/connection-strategy.md), `email` placed among the contacts, and the
 * contacts checked against the stored ones as the interactive write checks them (a 400 names
 * the entry), then handed to the relation's batch form (`CheckedContacts`).
 */
export async function checkContactsUpdate(
  read: Pick<WriteContext['tx'], 'execute'>,
  who: WriteContext['who'],
  record: Record<string, unknown>,
  id: number,
): Promise<boolean> {
  if (record.email === undefined && (record.contacts === undefined || record.contacts === null)) return true;
  const current = await currentContacts(read, who, id);
  // not there: the update answers 404 before its contacts are looked at
  if (current === undefined) return true;
  const { stored } = current;
  if (record.email !== undefined) placeAmong(record, current.email, stored);
  if (record.contacts === undefined || record.contacts === null) return true;
  const source = 'customer.contacts';
  const entries = sentEntries(record.contacts);
  checkValues(entries, stored, source);
  record.contacts = new CheckedContacts(entries, toUnmark(markedMain(entries, stored, source)));
  return true;
}

/** The entries that say something (a bare `{id: 0}` placeholder says nothing). */
function sentEntries(value: unknown): Entry[] {
  return (value as Entry[]).filter((entry) => entry.id !== undefined || entry.value !== undefined || isDeletion(entry));
}

/** Each value is checked as the contact will be: the type and value it keeps or gets; a 400 names the first that is not one. */
function checkValues(entries: Entry[], stored: Map<number, StoredContact>, source: string): void {
  entries.forEach((entry, index) => {
    if (isDeletion(entry) || (entry.value === undefined && entry.type === undefined)) return;
    const before = entry.id === undefined ? undefined : stored.get(entry.id);
    // not this customer's contact: the generic write answers 400 naming it
    if (entry.id !== undefined && before === undefined) return;
    const type = entry.type ?? before?.type ?? 'email';
    const checked = VALUE_RULES[type].safeParse(entry.value ?? before?.value);
    if (!checked.success)
      throw ApiError.invalid(
        `${source}[${index}].value`,
        `${checked.error.issues[0]?.message ?? 'is not valid'} (a ${type} contact)`,
      );
  });
}

type StoredContact = { type: ContactType; value: string; isMain: boolean };

/** The customer's live contacts by id. */
async function storedContacts(tx: WriteContext['tx'], customerId: number): Promise<Map<number, StoredContact>> {
  const rows = await tx
    .select({
      id: customerContacts.id,
      type: customerContacts.type,
      value: customerContacts.value,
      isMain: customerContacts.isMain,
    })
    .from(customerContacts)
    .where(and(eq(customerContacts.customerId, customerId), eq(customerContacts.state, 'active')));
  return new Map(rows.map(({ id, ...contact }) => [id, contact]));
}

/** The type an entry's contact has once written. */
function typeOf(entry: Entry, stored: Map<number, StoredContact>): ContactType {
  return entry.type ?? (entry.id === undefined ? undefined : stored.get(entry.id)?.type) ?? 'email';
}

/** The entries marked main, each contact once, and their types: a 400 when two of one type are. */
function markedMain(
  entries: Entry[],
  stored: Map<number, StoredContact>,
  source: string,
): { marked: Entry[]; types: ContactType[] } {
  // One contact may be named twice (a client sending back what it read, and the `email` it holds).
  const marked = entries.filter(
    (entry, index) =>
      entry.isMain === true &&
      !isDeletion(entry) &&
      (entry.id === undefined || entries.findIndex((e) => e.id === entry.id && e.isMain === true) === index),
  );
  const types = marked.map((entry) => typeOf(entry, stored));
  const twice = types.findIndex((type, index) => types.indexOf(type) !== index);
  if (twice >= 0) throw ApiError.invalid(source, `only one ${types[twice]} contact can be main`);
  return { marked, types };
}

/** Before entries marked main are written, the customer's other main contacts of their types lose the mark. */
async function unmarkOtherMains(
  tx: WriteContext['tx'],
  who: WriteContext['who'],
  customerId: number,
  entries: Entry[],
  stored: Map<number, StoredContact>,
  source: string,
) {
  const unmark = toUnmark(markedMain(entries, stored, source));
  if (unmark)
    await updateRecords(
      tx,
      who,
      otherMains(customerId, unmark),
      { isMain: false },
      { isMain: customerContacts.isMain },
    );
}

/** The main contacts that lose the mark to the entries marked main, if any are. */
function toUnmark({ marked, types }: { marked: Entry[]; types: ContactType[] }): Unmark | undefined {
  if (marked.length === 0) return undefined;
  return { types: [...new Set(types)], keep: marked.flatMap((entry) => (entry.id === undefined ? [] : [entry.id])) };
}

/**
 * Where a customer's `email` goes among its contacts before they are written: an address it
 * already has becomes main, a new one is added as main, and no other email entry of the body
 * stays marked main (`email` wins over a main mark sent back with what a client read). On an
 * update, the address the customer already reads as is no change. On create without `email`,
 * the main (or first) email contact sent gives it; a customer with no email at all is a 400.
 */
export async function placeEmail(
  { tx, who }: WriteContext,
  record: Record<string, unknown>,
  id: number | undefined,
): Promise<void> {
  if (id === undefined || record.email === undefined) {
    placeEmailOfNew(record, id);
    return;
  }
  await placeSentEmail(tx, who, record, id);
}

/**
 * `placeEmail` of an update that sends `email`: the customer's address and live contacts read in
 * one statement, in the write's transaction or before its batch (`db.http`).
 */
export async function placeSentEmail(
  db: Pick<WriteContext['tx'], 'execute'>,
  who: WriteContext['who'],
  record: Record<string, unknown>,
  id: number,
): Promise<void> {
  const current = await currentContacts(db, who, id);
  // not there: the update answers 404
  if (current === undefined) return;
  placeAmong(record, current.email, current.stored);
}

/** The customer's address and live contacts by id, in one statement; undefined when it is not the caller's. */
async function currentContacts(
  db: Pick<WriteContext['tx'], 'execute'>,
  who: WriteContext['who'],
  id: number,
): Promise<{ email: string | null; stored: Map<number, StoredContact> } | undefined> {
  const { rows } = await db.execute(sql`
    SELECT c.email, coalesce((SELECT json_agg(json_build_object('id', k.id, 'type', k.type, 'value', k.value, 'isMain', k.is_main))
                                FROM ${customerContacts} k WHERE k.customer_id = c.id AND k.state = 'active'), '[]') AS contacts
      FROM ${customers} c WHERE c.id = ${id} AND c.installation_id = ${who.installationId}`);
  const row = rows[0] as { email: string | null; contacts: Array<StoredContact & { id: number }> } | undefined;
  return (
    row && {
      email: row.email,
      stored: new Map(row.contacts.map(({ id: contactId, ...contact }) => [Number(contactId), contact])),
    }
  );
}

/** The sent `email` placed among the contacts (`makeMain`), or dropped when it is the address the customer has. */
function placeAmong(
  record: Record<string, unknown>,
  currentEmail: string | null,
  stored: Map<number, StoredContact>,
): void {
  const entries = [...((record.contacts as Entry[] | null | undefined) ?? [])];
  const email = record.email as string;
  if (typeof currentEmail === 'string' && currentEmail.trim().toLowerCase() === email.toLowerCase()) {
    // the address it already has (as a client sends back what it read): no change
    delete record.email;
    return;
  }
  const newEmails = entries.filter(
    (entry) =>
      (entry.type ?? 'email') === 'email' && entry.value !== undefined && !isDeletion(entry) && entry.id === undefined,
  );
  makeMain(record, entries, email, newEmails, stored);
}

/**
 * `placeEmail` where nothing needs looking up: a create, or an update that does not send `email`
 * (which leaves the contacts as sent). Answers false where it does need the database.
 */
export function placeEmailOfNew(record: Record<string, unknown>, id: number | undefined): boolean {
  if (id !== undefined) return record.email === undefined;
  const entries = [...((record.contacts as Entry[] | null | undefined) ?? [])];
  const email = record.email as string | undefined;
  const newEmails = entries.filter(
    (entry) =>
      (entry.type ?? 'email') === 'email' && entry.value !== undefined && !isDeletion(entry) && entry.id === undefined,
  );
  if (email === undefined) {
    const main = newEmails.find((entry) => entry.isMain) ?? newEmails[0];
    if (!main)
      throw ApiError.invalid('customer.email', 'a customer needs an email address: send `email` or an email contact');
    const address = emailAddress.safeParse(main.value);
    if (!address.success)
      throw ApiError.invalid(
        `customer.contacts[${entries.indexOf(main)}].value`,
        address.error.issues[0]?.message ?? 'is not an email address',
      );
    // the entry is the body's: its copy is marked
    entries[entries.indexOf(main)] = { ...main, isMain: true };
    record.email = address.data;
    record.contacts = entries;
    return true;
  }
  makeMain(record, entries, email, newEmails, new Map());
  return true;
}

/** `email` becomes the main email contact: one sent or held with that address, or a new one; no other email entry stays marked main. */
function makeMain(
  record: Record<string, unknown>,
  sent: Entry[],
  email: string,
  newEmails: Entry[],
  stored: Map<number, StoredContact>,
): void {
  const same = (value: string | undefined) => value !== undefined && value.trim().toLowerCase() === email.toLowerCase();
  // copies: the entries are the body's, which a retried write starts from again
  const entries = sent.map((entry) => ({ ...entry }));
  const found = newEmails.find((entry) => same(entry.value));
  let target = found ? entries[sent.indexOf(found)]! : undefined;
  if (!target) {
    const held = [...stored].find(([, contact]) => contact.type === 'email' && same(contact.value));
    target = held ? { id: held[0] } : { type: 'email', value: email };
    entries.push(target);
  }
  target.isMain = true;
  for (const entry of entries) {
    if (entry !== target && entry.id !== target.id && entry.isMain === true && typeOf(entry, stored) === 'email')
      delete entry.isMain;
  }
  record.contacts = entries;
}

/** `settleContacts` as statements of a batch (one round trip), the customer's id as SQL. */
export function settleContactsStatements(db: Writer, who: Actor, customerId: SQL): SQL[] {
  const mainEmail = sql`(SELECT m.value FROM customer_contacts m WHERE m.customer_id = ${customerId} AND m.state = 'active' AND m.type = 'email' AND m.is_main LIMIT 1)`;
  return [
    sql`SELECT desk_refuse(409, 'customer.contacts', format('the %s %s is already a contact of %s', t.type, t.value, CASE WHEN t.owner = ${customerId} THEN 'this customer twice' ELSE 'customer ' || t.owner END))
      FROM (SELECT c.type, c.value, other.customer_id AS owner FROM customer_contacts c
              JOIN customer_contacts other ON other.installation_id = c.installation_id AND other.type = c.type AND lower(other.value) = lower(c.value)
               AND other.state = 'active' AND other.id <> c.id
             WHERE c.customer_id = ${customerId} AND c.state = 'active' LIMIT 1) t`,
    updateStatement(
      db,
      who,
      { table: customerContacts, type: CONTACT_EVENTS, where: oldestWithoutMain(customerId) },
      { isMain: true },
      { isMain: customerContacts.isMain },
    ),
    refuseWhen(sql`${mainEmail} IS NULL`, 400, 'customer.contacts', 'a customer needs at least one email contact'),
    updateStatement(
      db,
      who,
      {
        table: customers,
        type: 'customers',
        where: and(sql`${customers.id} = ${customerId}`, sql`${customers.email} IS DISTINCT FROM ${mainEmail}`)!,
      },
      { email: mainEmail },
      { email: customers.email },
    ),
  ];
}

/** The oldest contact of each type of the customer's that has no main one. */
function oldestWithoutMain(customerId: number | SQL): SQL {
  return sql`${customerContacts.id} IN (SELECT DISTINCT ON (c.type) c.id FROM customer_contacts c
    WHERE c.customer_id = ${customerId} AND c.state = 'active'
      AND NOT EXISTS (SELECT 1 FROM customer_contacts m WHERE m.customer_id = c.customer_id AND m.type = c.type AND m.is_main AND m.state = 'active')
    ORDER BY c.type, c.id)`;
}

/**
 * The rules over a customer's contacts once a write is done: at least one email contact, one
 * main contact of each type it has (the oldest, when the main one went), values no other contact
 * of the installation holds (409 naming it), and `email` the main email contact's value.
 */
export async function settleContacts({ tx, who }: WriteContext, customerId: number): Promise<void> {
  const live = and(eq(customerContacts.customerId, customerId), eq(customerContacts.state, 'active'))!;
  const [taken] = await tx
    .select({ type: customerContacts.type, value: customerContacts.value, owner: sql<number>`other.customer_id` })
    .from(customerContacts)
    .innerJoin(
      sql`customer_contacts other`,
      sql`other.installation_id = ${customerContacts.installationId} AND other.type = ${customerContacts.type} AND lower(other.value) = lower(${customerContacts.value})
        AND other.state = 'active' AND other.id <> ${customerContacts.id}`,
    )
    .where(live)
    .limit(1);
  if (taken) {
    const whose = taken.owner === customerId ? 'this customer twice' : `customer ${taken.owner}`;
    throw ApiError.conflict('customer.contacts', `the ${taken.type} ${taken.value} is already a contact of ${whose}`);
  }
  // The oldest contact of each type that has no main one becomes main.
  await updateRecords(
    tx,
    who,
    { table: customerContacts, type: CONTACT_EVENTS, where: oldestWithoutMain(customerId) },
    { isMain: true },
    { isMain: customerContacts.isMain },
  );
  const [main] = await tx
    .select({ value: customerContacts.value })
    .from(customerContacts)
    .where(and(live, eq(customerContacts.type, 'email'), eq(customerContacts.isMain, true)));
  if (!main) throw ApiError.invalid('customer.contacts', 'a customer needs at least one email contact');
  await updateRecords(
    tx,
    who,
    { table: customers, type: 'customers', where: and(eq(customers.id, customerId), ne(customers.email, main.value))! },
    { email: main.value },
    { email: customers.email },
  );
}
