/**
 * The SQL part's pure pieces: how a run's Data API calls and rows become per-record and per-batch
 * figures, the table the report prints (apart from the DynamoDB strategies, with the latency
 * assumption spelled out), and how the meter names operations and the table an INSERT or an increment writes.
 */
import { DATA_API_ASSUMED_CALL, type LatencyProfileLabel } from '../../../emulator/gateway';
import { incrementStatement } from '../../../lambdas/runtime/stores/postgres/effects';
import { insertedTable, operationOf, writtenTable, type DataApiCounts } from '../../../tools/bench/data-api-meter';
import { sqlLines, summarizeSql, type SqlRun } from '../../../tools/bench/sql-summary';

const LOCAL: LatencyProfileLabel = { name: 'none', scale: 1 };
const AWS: LatencyProfileLabel = { name: 'aws', scale: 0.5 };

function counts(batches: number, executesPerBatch: number, rows: Record<string, number>): DataApiCounts {
  return { calls: { BeginTransaction: batches, ExecuteStatement: batches * executesPerBatch, BatchExecuteStatement: 0, CommitTransaction: batches, RollbackTransaction: 0 }, rowsWritten: rows };
}

/** A round of 200 records in 2 batches: 180 dedup rows, 60 counter rows, 10 statements a batch. */
function run(seconds: number, overrides: Partial<SqlRun> = {}): SqlRun {
  return { records: 200, batches: 2, seconds, billedMs: 400, counts: counts(2, 10, { bench_dedup_a: 180, bench_counters_a: 60 }), dedupTable: 'bench_dedup_a', dedupRowsStored: 180, exact: true, extraViews: 0, ...overrides };
}

describe('summarizeSql', () => {
  test('round trips per record and per batch, by operation, and rows written split into dedup and effect rows', () => {
    const report = summarizeSql(LOCAL, [run(1), run(2)], DATA_API_ASSUMED_CALL);
    expect(report).toMatchObject({
      name: 'local',
      dataApiLatency: null,
      roundTripsPerBatch: 12,
      roundTripsPerEvent: 0.12,
      callsPerBatch: { BeginTransaction: 1, ExecuteStatement: 10, BatchExecuteStatement: 0, CommitTransaction: 1, RollbackTransaction: 0 },
      dedupRowsPerEvent: 0.9,
      effectRowsPerEvent: 0.3,
      wallMsPerEvent: 2,
      exact: true,
    });
    expect(report.rowsWrittenPerEvent).toBeCloseTo(1.2);
  });

  test('events per second is the median of the rounds\'', () => {
    expect(summarizeSql(LOCAL, [run(1), run(4), run(2)], DATA_API_ASSUMED_CALL).eventsPerSecond).toBe(100);
  });

  test('under a latency profile, names the Data API latency it waited, scaled, as an assumption', () => {
    expect(summarizeSql(AWS, [run(1)], DATA_API_ASSUMED_CALL)).toMatchObject({ name: 'aws', dataApiLatency: { medianMs: DATA_API_ASSUMED_CALL.medianMs / 2, p99Ms: DATA_API_ASSUMED_CALL.p99Ms / 2, assumed: true } });
  });

  test('is inexact when one round is, and says by how many views the last round was off', () => {
    expect(summarizeSql(LOCAL, [run(1), run(1, { exact: false, extraViews: 3 })], DATA_API_ASSUMED_CALL)).toMatchObject({ exact: false, extraViews: 3 });
  });
});

describe('sqlLines', () => {
  test('nothing when the part did not run', () => {
    expect(sqlLines(null)).toEqual([]);
  });

  test('a heading, one row per profile with round trips and rows instead of write units, and the assumption the latency profile ran under', () => {
    const lines = sqlLines({ engine: 'PostgreSQL 17.10', profiles: [summarizeSql(LOCAL, [run(1)], DATA_API_ASSUMED_CALL), summarizeSql(AWS, [run(2, { exact: false, extraViews: -2 })], DATA_API_ASSUMED_CALL)] });
    const text = lines.join('\n');
    expect(lines[0]).toMatch(/^SQL strategy \(sqlStrategy over DataApiSession, through the local Data API gateway on PostgreSQL 17\.10\)/);
    expect(text).toMatch(/profile\s+events\/s\s+wall ms\/event\s+round trips\/event\s+round trips\/batch\s+Begin\s+Execute\s+BatchExecute\s+Commit\s+Rollback\s+dedup rows\/event\s+effect rows\/event\s+rows\/event\s+exact/);
    expect(text).toMatch(/^local\s+200\s+2\.000\s+0\.1200\s+12\.00\s+1\.00\s+10\.00\s+0\.00\s+1\.00\s+0\.00\s+0\.900\s+0\.300\s+1\.200\s+yes$/m);
    expect(text).toMatch(/^aws\s+100\s.*NO \(-2 views\)$/m);
    expect(text).not.toMatch(/WRU/);
    expect(text).toContain('Profile aws (latency aws (scale 0.5)): each Data API call waited a draw of median 5 ms, p99 15 ms, ASSUMED (AWS publishes no Data API latency)');
    expect(lines.at(-1)).toBe('');
  });
});

describe('the Data API meter\'s names', () => {
  test.each([
    ['BeginTransactionCommand', 'BeginTransaction'],
    ['ExecuteStatementCommand', 'ExecuteStatement'],
    ['BatchExecuteStatementCommand', 'BatchExecuteStatement'],
    ['CommitTransactionCommand', 'CommitTransaction'],
    ['RollbackTransactionCommand', 'RollbackTransaction'],
    ['ExecuteSqlCommand', undefined],
    [undefined, undefined],
  ])('%p is the operation %p', (command, operation) => {
    expect(operationOf(command)).toBe(operation);
  });

  test.each([
    ['INSERT INTO "bench_dedup_1a2b" (dedup_key) VALUES (:p0) ON CONFLICT (dedup_key) DO NOTHING RETURNING dedup_key', 'bench_dedup_1a2b'],
    ['insert into counters AS stored (pk, views) VALUES (:p0, :p1)', 'counters'],
    ['  INSERT INTO "odd""name" (a) VALUES (1)', 'odd"name'],
    ['SAVEPOINT eo_batch', undefined],
    ['SELECT dedup_key FROM "bench_dedup_1a2b"', undefined],
    [undefined, undefined],
  ])('%p writes to %p', (sql, table) => {
    expect(insertedTable(sql)).toBe(table);
  });

  test('an increment is counted against the table it updates, and an INSERT as before', () => {
    const increment = incrementStatement('bench_counters_1a2b', { pk: 'page-1' }, new Map([['views', 1n]])).sql;
    expect(writtenTable(increment)).toEqual({ table: 'bench_counters_1a2b', increment: true });
    expect(insertedTable(increment)).toBeUndefined();
    expect(writtenTable('INSERT INTO "odd""name" (a) VALUES (1)')).toEqual({ table: 'odd"name', increment: false });
    expect(writtenTable('WITH x AS (SELECT 1) SELECT * FROM x')).toBeUndefined();
  });
});
