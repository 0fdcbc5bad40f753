import { PgDialect } from 'drizzle-orm/pg-core';
import { sql, type SQL } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/auth/principal';
import type { Queryable } from '../../src/db/client';
import { USER_ROLES } from '../../src/db/schema';
import type { ResourceDeclaration } from '../../src/engine';
import { selectOne, selectPage, STATEMENT_CACHE_ENTRIES, statementCacheSizes } from '../../src/engine/queries';
import { everyResource } from '../support/resources';

/*
 * A read without a filter runs a statement rendered once per resource, includes and caller shape
 * (kind and role), with the caller's ids as placeholders (src/engine/queries.ts, `callerTemplate`).
 * That is right only if a scope rule or a computed field does nothing with a caller's ids but put
 * them into SQL: for every resource and every kind of caller, the prepared statement, filled,
 * must be the very statement rendered for that caller.
 */

const dialect = new PgDialect();

interface Statement {
  sql: string;
  params: unknown[];
}

/** A database handle that records the one statement it is given and answers no rows: prepared (as text), or rendered here. */
function recorder(prepared: boolean) {
  const statements: Statement[] = [];
  const db: Queryable = prepared
    ? {
        execute: () => Promise.reject(new Error('a prepared read rendered a statement')),
        executeText: async (text, params) => (statements.push({ sql: text, params }), { rows: [] }),
      }
    : {
        execute: async (query: SQL) => {
          const { sql, params } = dialect.sqlToQuery(query);
          statements.push({ sql, params });
          return { rows: [] };
        },
      };
  return { db, statements };
}

/**
 * The statement with each parameter written in its place: a page whose select list is spliced into
 * a filter rendered per request numbers its parameters in another order than one rendered whole.
 */
function inlined(statement: Statement): string {
  return statement.sql.replace(/\$(\d+)/g, (_, n: string) => JSON.stringify(statement.params[Number(n) - 1]));
}

/** Two callers of every shape, so that a statement cached for the first and reused for the second is caught. */
function callersOfEveryShape(installationId: number, userId: number): Actor[] {
  return [
    ...USER_ROLES.map((role) => ({ kind: 'teammate', installationId, userId, role }) as const),
    ...(['room', 'cron', 'import', 'widget'] as const).flatMap((part) => [
      { kind: 'system', installationId, userId, part } as const,
      { kind: 'system', installationId, userId: null, part } as const,
    ]),
  ];
}

let resources: ResourceDeclaration[] = [];
beforeAll(async () => {
  resources = await everyResource();
});

describe('prepared reads', () => {
  it('cover every resource of every module', () => {
    expect(resources.length).toBeGreaterThanOrEqual(30);
    expect(resources.map((r) => r.type)).toContain('tickets');
  });

  for (const [installationId, userId] of [
    [11, 21],
    [12, 22],
  ] as const) {
    it(`are, filled, the statements rendered for each caller (installation ${installationId}, user ${userId})`, async () => {
      let compared = 0;
      for (const resource of resources) {
        for (const includes of [[], Object.keys(resource.relations)]) {
          for (const who of callersOfEveryShape(installationId, userId)) {
            const label = `${resource.type} includes=[${includes}] ${JSON.stringify(who)}`;
            const prepared = recorder(true);
            const rendered = recorder(false);
            await selectOne(prepared.db, resource, 31, { who, includes });
            await selectOne(rendered.db, resource, 31, { who, includes });
            const page = { limit: 25, offset: 50, order: undefined };
            await selectPage(prepared.db, resource, { who, includes }, page);
            await selectPage(rendered.db, resource, { who, includes }, page);
            // a filtered, ordered page: its select list spliced into the rest, rendered per request
            const t = resource.table;
            const filtered = { who, includes, where: sql`${t.id} > ${7}`, withDeleted: true };
            const ordered = { ...page, order: { expr: t.id, descending: true } };
            await selectPage(prepared.db, resource, filtered, ordered);
            await selectPage(rendered.db, resource, filtered, ordered);
            expect(prepared.statements, label).toHaveLength(3);
            expect(prepared.statements.slice(0, 2), label).toEqual(rendered.statements.slice(0, 2));
            expect(inlined(prepared.statements[2]!), label).toEqual(inlined(rendered.statements[2]!));
            compared += 3;
          }
        }
      }
      expect(compared).toBe(resources.length * 2 * callersOfEveryShape(0, 0).length * 3);
    });
  }

  it("are kept for at most a bounded number of include sets: every subset of ten of a ticket's includes does not fill the isolate", async () => {
    const tickets = resources.find((r) => r.type === 'tickets')!;
    // enough of its relations that their subsets are four times what the cache keeps (all of them would only take longer)
    const needed = Math.floor(Math.log2(STATEMENT_CACHE_ENTRIES * 4)) + 1;
    const names = Object.keys(tickets.relations).slice(0, needed);
    expect(names).toHaveLength(needed);
    expect(2 ** names.length).toBeGreaterThan(STATEMENT_CACHE_ENTRIES * 4);
    const who = { kind: 'teammate', installationId: 1, userId: 2, role: 'agent' } as const;
    const texts = new Map<string, string>();
    for (let subset = 0; subset < 2 ** names.length; subset++) {
      const includes = names.filter((_, i) => subset & (1 << i));
      const { db, statements } = recorder(true);
      await selectOne(db, tickets, 9, { who, includes });
      await selectPage(db, tickets, { who, includes, where: sql`true` }, { limit: 5, offset: 0, order: undefined });
      if (subset < 3) texts.set(includes.join(), statements[0]!.sql);
    }
    for (const size of Object.values(statementCacheSizes())) expect(size).toBeLessThanOrEqual(STATEMENT_CACHE_ENTRIES);
    expect(statementCacheSizes().ones).toBe(STATEMENT_CACHE_ENTRIES);
    // an entry that left is rendered again, the same
    for (const [joined, text] of texts) {
      const { db, statements } = recorder(true);
      await selectOne(db, tickets, 9, { who, includes: joined ? joined.split(',') : [] });
      expect(statements[0]!.sql).toBe(text);
    }
  });

  it('name the caller: an agent and an owner of the same installation read tickets by different statements', async () => {
    const tickets = resources.find((r) => r.type === 'tickets')!;
    const texts = await Promise.all(
      (['owner', 'agent'] as const).map(async (role) => {
        const { db, statements } = recorder(true);
        await selectOne(db, tickets, 5, {
          who: { kind: 'teammate', installationId: 1, userId: 2, role },
          includes: [],
        });
        return statements[0]!;
      }),
    );
    expect(texts[0]!.sql).not.toEqual(texts[1]!.sql);
    expect(texts[1]!.sql).toContain('inbox_users');
    expect(texts[1]!.params).toContain(2);
  });
});
