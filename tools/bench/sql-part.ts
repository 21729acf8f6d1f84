/**
 * The SQL part: the throughput part's page views counted by `sqlStrategy` over a `DataApiSession`,
 * through the local Data API gateway (in a process of its own, waiting the profile's latency) on a
 * real PostgreSQL: a warm-up, then the measured rounds, each on fresh tables, under the bare
 * profile and, when the run has one, its latency profile.
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { performance } from 'node:perf_hooks';
import { DataApiSession } from '../../lambdas/runtime';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../emulator/engines/account';
import type { PostgresConnection } from '../../emulator/engines/postgres';
import { AWS_LATENCY_FIGURES, latencyLabel, type LatencyProfileLabel } from '../../emulator/gateway';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN } from '../../emulator/gateway/data-api-gateway';
import type { Progress } from '../../cli/progress';
import { meterDataApi, type DataApiMeter } from './data-api-meter';
import { startDataApiProcess } from './gateway-process';
import { countDedupRows, createSqlHandler, createSqlTables, dropSqlTables, postgresVersion, readSqlCounters, SQL_CONSUMER_NAME } from './sql-consumer';
import { summarizeSql, type SqlProfileReport, type SqlRun } from './sql-summary';
import { compareCounts } from './tables';
import { deliver, type Billing } from './throughput';
import type { Workload } from './workload';

/** The SQL part of the report. */
export interface SqlReport {
  /** The database behind the local Data API, e.g. `PostgreSQL 17.4`. */
  readonly engine: string;
  /** How rows written are counted. */
  readonly rowsCountedFrom: string;
  /** `local` first, then the run's latency profile when it adds latency. */
  readonly profiles: readonly SqlProfileReport[];
}

export interface SqlPartOptions {
  readonly rounds: number;
  /** Records of the unmeasured warm-up round (the workload's first batches); 0 for none. */
  readonly warmupEvents: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly progress?: Progress;
}

const ROWS_COUNTED_FROM = 'numberOfRecordsUpdated of each INSERT the Data API answered, by the table it writes (PostgreSQL\'s row count: inserted or updated)';

/** Runs the part under each of `profiles` (the bare one first), with a Data API gateway of its own for each. */
export async function measureSql(postgres: PostgresConnection, workload: Workload, profiles: readonly LatencyProfileLabel[], options: SqlPartOptions): Promise<SqlReport> {
  const reports: SqlProfileReport[] = [];
  for (const latency of profiles) {
    const gateway = await startDataApiProcess(postgres, latency, options.seed);
    try {
      reports.push(summarizeSql(latency, await measureProfile(postgres, gateway.endpoint, workload, latency, options), AWS_LATENCY_FIGURES['rds-data:ExecuteStatement']));
    } finally {
      await gateway.stop();
    }
  }
  return { engine: await postgresVersion(postgres), rowsCountedFrom: ROWS_COUNTED_FROM, profiles: reports };
}

async function measureProfile(postgres: PostgresConnection, endpoint: string, workload: Workload, latency: LatencyProfileLabel, options: SqlPartOptions): Promise<SqlRun[]> {
  const client = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint, maxAttempts: 1 });
  const meter = meterDataApi(client);
  const session = new DataApiSession({ client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN });
  const warmup = workload.batches.slice(0, Math.ceil(options.warmupEvents / options.batchSize));
  const total = warmup.length + options.rounds * workload.batches.length;
  let done = 0;
  const onBatch = (): void => options.progress?.update('batches', ++done, total);
  try {
    options.progress?.phase(`SQL strategy through the Data API, latency profile ${latencyLabel(latency)}: ${workload.deliveries} records x ${options.rounds} rounds${warmup.length > 0 ? ` after a warm-up of ${warmup.length} batches` : ''}`);
    if (warmup.length > 0) await runSql(postgres, session, meter, workload, warmup, onBatch);
    const runs: SqlRun[] = [];
    for (let round = 0; round < options.rounds; round++) runs.push(await runSql(postgres, session, meter, workload, workload.batches, onBatch));
    options.progress?.done();
    return runs;
  } finally {
    client.destroy();
  }
}

/** One run over `batches` on fresh tables; the counts are checked against the workload's when it ran them all. */
export async function runSql(postgres: PostgresConnection, session: DataApiSession, meter: DataApiMeter, workload: Workload, batches: Workload['batches'] = workload.batches, onBatch: () => void = () => undefined): Promise<SqlRun> {
  const tables = await createSqlTables(postgres);
  try {
    const handler = createSqlHandler(tables, session);
    const billing: Billing = { invocations: 0, billedMs: 0 };
    let failed = 0;
    meter.reset();
    const started = performance.now();
    for (const batch of batches) {
      failed += (await deliver(handler, batch, SQL_CONSUMER_NAME, billing)).failed;
      onBatch();
    }
    const seconds = (performance.now() - started) / 1000;
    const counts = meter.counts();
    const compared = batches === workload.batches ? compareCounts(workload.expected, await readSqlCounters(postgres, tables)) : { mismatches: 0, extraViews: 0 };
    const records = batches.reduce((sum, batch) => sum + batch.Records.length, 0);
    const dedupRowsStored = await countDedupRows(postgres, tables);
    return { records, batches: batches.length, seconds, billedMs: billing.billedMs, counts, dedupTable: tables.dedupTable, dedupRowsStored, exact: compared.mismatches === 0 && failed === 0, extraViews: compared.extraViews };
  } finally {
    await dropSqlTables(postgres, tables);
  }
}
