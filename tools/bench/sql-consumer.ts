/**
 * `sql`: the page-view counter on PostgreSQL through the RDS Data API. The same page views and the
 * same effects as the DynamoDB strategies (one view on the page's counter and on the day's), each
 * as a `sqlIncrement`, which `sqlStrategy` sums per row over a batch; each event's dedup row goes
 * into the dedup table in the same transaction. Fresh tables per run, in PostgreSQL directly.
 */
import { randomBytes } from 'node:crypto';
import { createConsumer, dedupTableDdl, route, SourceKind, sqlIdentifier, sqlIncrement, sqlStrategy, type BatchHandler, type SqlEffects, type SqlSession } from '../../lambdas/runtime';
import type { PostgresConnection } from '../../emulator/engines/postgres';
import { withPostgresSession } from '../../emulator/engines/postgres-session';
import { pageViewEffects, PAGE_VIEWED } from '../../example/handlers/page-view-counter';
import { pageViewPayload } from './handlers/common';

/** The tables of one run: counters (`pk` text, `views` bigint) and the strategy's dedup table. */
export interface SqlBenchTables {
  readonly countersTable: string;
  readonly dedupTable: string;
}

/** The consumer's name: its dedup rows' namespace. */
export const SQL_CONSUMER_NAME = 'bench-sql';

/** The page-view counter with `sqlStrategy` over `session`, writing to `tables`. */
export function createSqlHandler(tables: SqlBenchTables, session: SqlSession): BatchHandler {
  return createConsumer<SqlEffects>({
    name: SQL_CONSUMER_NAME,
    source: SourceKind.SQS,
    routes: {
      [PAGE_VIEWED]: route(pageViewPayload, (event) => pageViewIncrements(tables.countersTable, event.payload.pageId, event.occurredAt)),
    },
    strategy: sqlStrategy({ session, dedup: { table: tables.dedupTable, consumer: SQL_CONSUMER_NAME } }),
  });
}

/** The DynamoDB strategies' effects of a page view, as SQL increments of the same counters. */
export function pageViewIncrements(countersTable: string, pageId: string, occurredAt: string): SqlEffects {
  return pageViewEffects(countersTable, pageId, occurredAt).map((effect) => {
    if (effect.kind !== 'increment') throw new TypeError(`the page-view counter's effects are increments (given ${effect.kind})`);
    return sqlIncrement(countersTable, { pk: String(effect.key.pk) }, 'views', effect.amount);
  });
}

/** Creates a run's tables with a random suffix. */
export async function createSqlTables(postgres: PostgresConnection): Promise<SqlBenchTables> {
  const suffix = randomBytes(4).toString('hex');
  const tables = { countersTable: `bench_counters_${suffix}`, dedupTable: `bench_dedup_${suffix}` };
  await withPostgresSession(postgres, async (session) => {
    await session.query(`CREATE TABLE ${sqlIdentifier(tables.countersTable).quoted} (pk text PRIMARY KEY, views bigint NOT NULL DEFAULT 0)`);
    for (const statement of dedupTableDdl(tables.dedupTable)) await session.query(statement);
  });
  return tables;
}

export async function dropSqlTables(postgres: PostgresConnection, tables: SqlBenchTables): Promise<void> {
  await withPostgresSession(postgres, (session) => session.query(`DROP TABLE IF EXISTS ${sqlIdentifier(tables.countersTable).quoted}, ${sqlIdentifier(tables.dedupTable).quoted}`));
}

/** Every counter's `views`, by key. */
export async function readSqlCounters(postgres: PostgresConnection, tables: SqlBenchTables): Promise<Map<string, number>> {
  const { rows } = await withPostgresSession(postgres, (session) => session.query<{ pk: string; views: string }>(`SELECT pk, views FROM ${sqlIdentifier(tables.countersTable).quoted}`));
  return new Map(rows.map((row) => [row.pk, Number(row.views)]));
}

/** The dedup rows the table holds. */
export async function countDedupRows(postgres: PostgresConnection, tables: SqlBenchTables): Promise<number> {
  const { rows } = await withPostgresSession(postgres, (session) => session.query<{ count: string }>(`SELECT count(*) FROM ${sqlIdentifier(tables.dedupTable).quoted}`));
  return Number(rows[0]?.count ?? 0);
}

/** PostgreSQL's version, for the report (`PostgreSQL 17.x`). */
export async function postgresVersion(postgres: PostgresConnection): Promise<string> {
  const { rows } = await withPostgresSession(postgres, (session) => session.query<{ server_version: string }>('SHOW server_version'));
  return `PostgreSQL ${rows[0]?.server_version ?? 'unknown'}`;
}
