import { sql } from 'drizzle-orm';
import { boolean, integer, PgDialect, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors';
import { compileFilter, parseFilter, type FilterFields } from '../../src/engine/filter';

const tickets = pgTable('tickets', {
  id: integer('id').primaryKey(),
  subject: text('subject'),
  urgent: boolean('urgent'),
  status: text('status'),
  createdAt: timestamp('created_at', { withTimezone: true }),
  deletedBy: integer('deleted_by'),
});

const fields: FilterFields = {
  id: { expr: tickets.id, type: 'integer' },
  subject: { expr: tickets.subject, type: 'string' },
  urgent: { expr: tickets.urgent, type: 'boolean' },
  status: { expr: tickets.status, type: 'enum', values: ['open', 'pending', 'closed'] },
  createdAt: { expr: tickets.createdAt, type: 'datetime' },
  deletedBy: { expr: tickets.deletedBy, type: 'integer' },
  subjectLength: { expr: sql`length(${tickets.subject})`, type: 'integer' },
};

const ID = '"tickets"."id"';
const SUBJECT = '"tickets"."subject"';
const dialect = new PgDialect();

function render(filter: unknown): { sql: string; params: unknown[] } {
  const fragment = compileFilter(filter as Record<string, unknown>, fields);
  if (!fragment) throw new Error('expected a condition, got undefined');
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  return { sql: text, params };
}

function apiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError, nothing was thrown');
}

function expectInvalid(run: () => unknown, source: string, detail?: RegExp): void {
  const error = apiError(run);
  expect(error.status).toBe(400);
  expect(error.errors).toHaveLength(1);
  expect(error.errors[0]).toMatchObject({ code: 'invalid', source });
  if (detail) expect(error.errors[0]?.detail).toMatch(detail);
}

const rejects = (filter: unknown, source: string, detail?: RegExp) =>
  expectInvalid(() => compileFilter(filter as Record<string, unknown>, fields), source, detail);

/** `{"$and": [{"$and": [... leaf ...]}]}` with `levels` logical operators. */
function nested(levels: number): Record<string, unknown> {
  let filter: Record<string, unknown> = { id: 1 };
  for (let i = 0; i < levels; i++) filter = { $and: [filter] };
  return filter;
}

describe('parseFilter', () => {
  it('treats a missing or empty parameter as no filter', () => {
    expect(parseFilter(undefined)).toBeUndefined();
    expect(parseFilter('')).toBeUndefined();
  });

  it('parses a JSON object', () => {
    expect(parseFilter('{"name":{"$gte":"a"}}')).toEqual({ name: { $gte: 'a' } });
  });

  it.each(['{name: 1}', '{"a":', 'Acme', ' '])('rejects non-JSON %j', (raw) => {
    expectInvalid(() => parseFilter(raw), 'filter', /JSON/);
  });

  it.each(['[{"id":1}]', '"Acme"', '42', 'null', 'true'])('rejects the JSON non-object %s', (raw) => {
    expectInvalid(() => parseFilter(raw), 'filter', /object/);
  });
});

describe('compileFilter', () => {
  it('returns undefined for no filter or an empty one', () => {
    expect(compileFilter(undefined, fields)).toBeUndefined();
    expect(compileFilter({}, fields)).toBeUndefined();
  });

  it.each([[['a']], ['Acme'], [42]])('rejects the top-level shape %j', (filter) => {
    rejects(filter, 'filter', /object/);
  });

  describe('operators', () => {
    it('compiles a bare value as $eq', () => {
      expect(render({ subject: 'Acme' })).toEqual({ sql: `${SUBJECT} = $1`, params: ['Acme'] });
    });

    it('compiles $eq', () => {
      expect(render({ id: { $eq: 7 } })).toEqual({ sql: `${ID} = $1::bigint`, params: [7] });
    });

    it('compiles $ne as IS DISTINCT FROM, so NULLs match too', () => {
      expect(render({ deletedBy: { $ne: 3 } })).toEqual({
        sql: '"tickets"."deleted_by" is distinct from $1::bigint',
        params: [3],
      });
    });

    it.each([
      ['$lt', '<'],
      ['$lte', '<='],
      ['$gt', '>'],
      ['$gte', '>='],
    ])('compiles %s as %s', (op, symbol) => {
      expect(render({ id: { [op]: 5 } })).toEqual({ sql: `${ID} ${symbol} $1::bigint`, params: [5] });
    });

    it('compares strings and enums with range operators', () => {
      expect(render({ subject: { $lt: 'm' } })).toEqual({ sql: `${SUBJECT} < $1`, params: ['m'] });
      expect(render({ status: { $gte: 'open' } })).toEqual({ sql: '"tickets"."status" >= $1', params: ['open'] });
    });

    it('compiles $in', () => {
      expect(render({ id: { $in: [1, '2', 3] } })).toEqual({
        sql: `${ID} in ($1::bigint, $2::bigint, $3::bigint)`,
        params: [1, 2, 3],
      });
    });

    it('compiles $nin so that NULLs match too', () => {
      expect(render({ status: { $nin: ['open', 'closed'] } })).toEqual({
        sql: '("tickets"."status" is null or "tickets"."status" not in ($1, $2))',
        params: ['open', 'closed'],
      });
    });

    it('compiles $contains as a case-insensitive substring match', () => {
      expect(render({ subject: { $contains: 'ac' } })).toEqual({
        sql: `${SUBJECT} ilike $1 escape '\\'`,
        params: ['%ac%'],
      });
    });

    it('escapes LIKE wildcards and the escape character in $contains', () => {
      expect(render({ subject: { $contains: '50%_off\\now' } }).params).toEqual(['%50\\%\\_off\\\\now%']);
    });

    it('accepts the limits of $in exactly', () => {
      const values = Array.from({ length: 500 }, (_, i) => i);
      expect(render({ id: { $in: values } }).params).toEqual(values);
    });

    it('wraps an SQL expression field in parentheses', () => {
      expect(render({ subjectLength: { $gt: 10 } })).toEqual({
        sql: `(length(${SUBJECT})) > $1::bigint`,
        params: [10],
      });
    });
  });

  describe('combining', () => {
    it('treats several fields as an implicit $and', () => {
      expect(render({ subject: 'Acme', urgent: true })).toEqual({
        sql: `(${SUBJECT} = $1 and "tickets"."urgent" = $2)`,
        params: ['Acme', true],
      });
    });

    it('treats several operators on one field as an implicit $and', () => {
      expect(render({ subject: { $gte: 'a', $lt: 'm' } })).toEqual({
        sql: `(${SUBJECT} >= $1 and ${SUBJECT} < $2)`,
        params: ['a', 'm'],
      });
    });

    it('compiles $or and $and', () => {
      expect(render({ $or: [{ id: 1 }, { subject: 'x' }] })).toEqual({
        sql: `(${ID} = $1::bigint or ${SUBJECT} = $2)`,
        params: [1, 'x'],
      });
      expect(render({ $and: [{ id: 1 }, { subject: 'x' }] })).toEqual({
        sql: `(${ID} = $1::bigint and ${SUBJECT} = $2)`,
        params: [1, 'x'],
      });
    });

    it('compiles the platform docs example with nesting', () => {
      const filter = {
        $or: [{ id: { $gt: 20 } }, { subject: 'mike' }, { $and: [{ id: { $gt: 12 } }, { id: { $lte: 18 } }] }],
      };
      expect(render(filter)).toEqual({
        sql: `(${ID} > $1::bigint or ${SUBJECT} = $2 or (${ID} > $3::bigint and ${ID} <= $4::bigint))`,
        params: [20, 'mike', 12, 18],
      });
    });

    it('combines a logical operator with sibling fields', () => {
      expect(render({ status: 'open', $or: [{ urgent: true }, { id: { $lt: 5 } }] })).toEqual({
        sql: `("tickets"."status" = $1 and ("tickets"."urgent" = $2 or ${ID} < $3::bigint))`,
        params: ['open', true, 5],
      });
    });

    it('accepts 8 nested levels and 100 conditions', () => {
      expect(render(nested(8)).params).toEqual([1]);
      const hundred = { $or: Array.from({ length: 100 }, (_, i) => ({ id: i })) };
      expect(render(hundred).params).toHaveLength(100);
    });
  });

  describe('values', () => {
    it('compiles null as IS NULL / IS NOT NULL', () => {
      expect(render({ deletedBy: null })).toEqual({ sql: '"tickets"."deleted_by" is null', params: [] });
      expect(render({ deletedBy: { $eq: null } })).toEqual({ sql: '"tickets"."deleted_by" is null', params: [] });
      expect(render({ deletedBy: { $ne: null } })).toEqual({ sql: '"tickets"."deleted_by" is not null', params: [] });
    });

    it('coerces digit strings to integers', () => {
      expect(render({ id: '42' }).params).toEqual([42]);
      expect(render({ id: { $gt: '-7' } }).params).toEqual([-7]);
    });

    it('compiles booleans and enum values', () => {
      expect(render({ urgent: false })).toEqual({ sql: '"tickets"."urgent" = $1', params: [false] });
      expect(render({ status: 'pending' })).toEqual({ sql: '"tickets"."status" = $1', params: ['pending'] });
    });

    it.each([
      ['2024-05-01', '2024-05-01T00:00:00Z'],
      ['2024-02-29', '2024-02-29T00:00:00Z'],
      ['2000-02-29T23:59', '2000-02-29T23:59Z'],
      ['2024-05-01T12:30:00', '2024-05-01T12:30:00Z'],
      ['2024-05-01T12:30:00.123456Z', '2024-05-01T12:30:00.123456Z'],
      ['2024-05-01T12:30:00+02:00', '2024-05-01T12:30:00+02:00'],
      ['2024-05-01T12:30:00-15:59', '2024-05-01T12:30:00-15:59'],
    ])('compares the datetime %s as timestamptz %s', (value, param) => {
      expect(render({ createdAt: { $gte: value } })).toEqual({
        sql: '"tickets"."created_at" >= $1::timestamptz',
        params: [param],
      });
    });

    it('never splices values into the SQL text', () => {
      const evil = "x'; drop table tickets; --";
      const { sql: text, params } = render({ $or: [{ subject: evil }, { subject: { $contains: evil } }] });
      expect(text).not.toContain('drop');
      expect(params).toEqual([evil, `%${evil}%`]);
    });
  });

  describe('errors', () => {
    it('rejects an unknown field, listing the allowed names', () => {
      rejects({ nope: 1 }, 'filter.nope', /unknown field "nope".*id, subject, urgent, status, createdAt, deletedBy/);
      rejects({ $or: [{ id: 1 }, { nope: 1 }] }, 'filter.nope', /unknown field/);
    });

    it('rejects names that only exist on the prototype', () => {
      rejects({ constructor: 1 }, 'filter.constructor', /unknown field/);
      rejects(JSON.parse('{"__proto__": 1}'), 'filter.__proto__', /unknown field/);
    });

    it.each(['$nor', '$not', '$all', '$where'])('rejects the unknown top-level operator %s', (op) => {
      rejects({ [op]: [{ id: 1 }] }, 'filter', new RegExp(`unknown operator "\\${op}"`));
    });

    it.each(['$not', '$all', '$regex', '$exists'])('rejects the unknown field operator %s', (op) => {
      rejects({ subject: { [op]: 'x' } }, 'filter.subject', new RegExp(`unknown operator "\\${op}"`));
    });

    it('rejects operators in the wrong place', () => {
      rejects({ $eq: 1 }, 'filter', /"\$eq" must be applied to a field/);
      rejects({ subject: { $or: [{ subject: 'a' }] } }, 'filter.subject', /"\$or"/);
      rejects({ subject: { first: 'x' } }, 'filter.subject', /unknown operator "first"/);
      rejects({ subject: {} }, 'filter.subject', /empty/);
    });

    it.each([
      ['$or', []],
      ['$and', []],
      ['$or', { id: 1 }],
      ['$or', 'x'],
      ['$or', [1]],
      ['$or', [[{ id: 1 }]]],
      ['$and', [{}]],
    ])('rejects %s with %j', (op, value) => {
      rejects({ [op]: value }, 'filter', new RegExp(`\\${op}`));
    });

    it('rejects nesting deeper than 8 levels', () => {
      rejects(nested(9), 'filter', /nested/);
    });

    it('rejects more than 100 conditions', () => {
      rejects({ $or: Array.from({ length: 101 }, (_, i) => ({ id: i })) }, 'filter', /100 conditions/);
      rejects({ $and: Array.from({ length: 51 }, () => ({ id: { $gt: 1, $lt: 9 } })) }, 'filter', /100 conditions/);
    });

    it.each([1.5, '12a', '', '1e3', true, [1], 2 ** 53, '9007199254740993'])(
      'rejects %j for an integer field',
      (value) => rejects({ id: value }, 'filter.id', /integer/),
    );

    it.each([5, true, ['a'], 'a\0b'])('rejects %j for a string field', (value) => {
      rejects({ subject: value }, 'filter.subject', /string|NUL/);
    });

    it.each(['true', 1, 0, 'yes'])('rejects %j for a boolean field', (value) => {
      rejects({ urgent: value }, 'filter.urgent', /true or false/);
    });

    it.each([
      'yesterday',
      1714521600000,
      '2024-5-1',
      '2024-13-01',
      '2024-04-31',
      '2023-02-29',
      '1900-02-29',
      '0000-01-01',
      '2024-01-01T24:00:00Z',
      '2024-01-01T10:60Z',
      '2024-01-01T10:00:00+16:00',
      '2024-01-01 10:00:00Z',
      '2024-01-01T10:00:00Zjunk',
    ])('rejects %j for a datetime field', (value) => {
      rejects({ createdAt: { $gt: value } }, 'filter.createdAt', /ISO 8601/);
    });

    it.each(['archived', 'OPEN', 1])('rejects %j for an enum field', (value) => {
      rejects({ status: value }, 'filter.status', /one of: open, pending, closed/);
    });

    it.each(['$lt', '$lte', '$gt', '$gte'])('rejects null with %s', (op) => {
      rejects({ subject: { [op]: null } }, 'filter.subject', /null/);
    });

    it('rejects null inside $in', () => {
      rejects({ deletedBy: { $in: [1, null] } }, 'filter.deletedBy', /null/);
    });

    it.each(['$lt', '$lte', '$gt', '$gte'])('rejects %s on a boolean field', (op) => {
      rejects({ urgent: { [op]: true } }, 'filter.urgent', /boolean/);
    });

    it.each([
      ['id', 1],
      ['status', 'open'],
      ['createdAt', '2024-01-01'],
      ['urgent', true],
    ])('rejects $contains on the non-string field %s', (name, value) => {
      rejects({ [name]: { $contains: value } }, `filter.${name}`, /\$contains/);
    });

    it.each([5, null, ['a']])('rejects the $contains value %j', (value) => {
      rejects({ subject: { $contains: value } }, 'filter.subject', /must be a string/);
    });

    it.each(['$in', '$nin'])('rejects %s without a non-empty array of at most 500 values', (op) => {
      rejects({ id: { [op]: 1 } }, 'filter.id', /array/);
      rejects({ id: { [op]: [] } }, 'filter.id', /array/);
      rejects({ id: { [op]: { a: 1 } } }, 'filter.id', /array/);
      rejects({ id: { [op]: Array.from({ length: 501 }, (_, i) => i) } }, 'filter.id', /500/);
    });

    it('rejects a wrongly typed value inside $in', () => {
      rejects({ status: { $in: ['open', 'archived'] } }, 'filter.status', /one of/);
    });
  });
});

describe('date fields', () => {
  const dates = { day: { expr: sql`day_col`, type: 'date' as const } };
  const render = (filter: Record<string, unknown>) => new PgDialect().sqlToQuery(compileFilter(filter, dates)!);

  it('compares calendar dates as dates', () => {
    const query = render({ day: { $gte: '2024-02-29' } });
    expect(query.sql).toContain('::date');
    expect(query.params).toEqual(['2024-02-29']);
  });

  it('refuses a date that is not a calendar date, and $contains', () => {
    for (const filter of [{ day: '2023-02-29' }, { day: '2024-05-01T00:00:00Z' }, { day: { $contains: '12' } }]) {
      expect(() => render(filter)).toThrowError(
        expect.objectContaining({ status: 400, errors: [expect.objectContaining({ source: 'filter.day' })] }),
      );
    }
  });
});

describe('a filter name over related records (exists)', () => {
  const tags = pgTable('tags', { ticketId: integer('ticket_id'), name: text('name') });
  const related: FilterFields = {
    'tags.name': {
      expr: tags.name,
      type: 'string',
      exists: (condition) =>
        sql`exists (select 1 from ${tags} where ${tags.ticketId} = ${tickets.id} and ${condition})`,
    },
  };
  const renderRelated = (filter: unknown) =>
    dialect.sqlToQuery(compileFilter(filter as Record<string, unknown>, related)!);
  const EXISTS = 'exists (select 1 from "tags" where "tags"."ticket_id" = "tickets"."id" and';

  it('holds when some related record meets the condition', () => {
    expect(renderRelated({ 'tags.name': { $in: ['a', 'b'] } })).toMatchObject({
      sql: `${EXISTS} ("tags"."name" in ($1, $2)))`,
      params: ['a', 'b'],
    });
    expect(renderRelated({ 'tags.name': { $contains: 'v' } }).sql).toBe(
      `${EXISTS} ("tags"."name" ilike $1 escape '\\'))`,
    );
  });

  it('negates: $ne and $nin hold when no related record has the value, null asks whether there is one', () => {
    expect(renderRelated({ 'tags.name': { $nin: ['a'] } }).sql).toBe(`not ${EXISTS} ("tags"."name" in ($1)))`);
    expect(renderRelated({ 'tags.name': { $ne: 'a' } }).sql).toBe(`not ${EXISTS} ("tags"."name" = $1))`);
    expect(renderRelated({ 'tags.name': null }).sql).toBe(`not ${EXISTS} true)`);
    expect(renderRelated({ 'tags.name': { $ne: null } }).sql).toBe(`${EXISTS} true)`);
  });

  it('checks the operand as any field', () => {
    expect(apiError(() => renderRelated({ 'tags.name': { $in: 'a' } })).status).toBe(400);
    expect(apiError(() => renderRelated({ 'tags.name': 7 })).status).toBe(400);
  });
});
