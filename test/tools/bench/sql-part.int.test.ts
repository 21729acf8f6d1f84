/**
 * The bench's SQL part on a tiny workload against a real PostgreSQL: the Data API calls and the
 * rows written are exactly what the strategy must make (a model of it below, batch by batch), the
 * counts come out exact, and both profiles run, the second under the assumed Data API latency.
 * Speed is not checked: it says more about the machine than about the code.
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { DataApiSession } from '../../../lambdas/runtime';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../emulator/engines/postgres';
import { DATA_API_ASSUMED_CALL, type LatencyProfileLabel } from '../../../emulator/gateway';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../emulator/gateway/data-api-gateway';
import { generateWorkload, type Workload } from '../../../tools/bench';
import { meterDataApi } from '../../../tools/bench/data-api-meter';
import { pageViewEffects } from '../../../example/handlers/page-view-counter';
import { measureSql, runSql } from '../../../tools/bench/sql-part';

const workload = generateWorkload({ events: 300, seed: 7 });

let postgres: RunningPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
});

afterAll(async () => {
  await postgres?.stop();
});

/** What the strategy must ask of the Data API, and write, over the whole workload. */
interface Expected {
  readonly begins: number;
  readonly executes: number;
  readonly batchExecutes: number;
  readonly commits: number;
  readonly dedupRows: number;
  readonly counterRows: number;
}

/**
 * The model, batch by batch: the consumer drops a batch's in-batch copies; the strategy's one
 * transaction bounds its statements by the invocation's time left (one statement), inserts the dedup rows of the rest (one statement), reads the stored rows of those
 * it did not insert (one statement, when there are any), and when some are new, applies their
 * increments summed to one per counter row, all of one shape: one `BatchExecuteStatement` (one
 * `ExecuteStatement` when there is one row), between a SAVEPOINT and its RELEASE.
 */
function expectedOf(load: Workload): Expected {
  const applied = new Set<string>();
  const totals = { begins: 0, executes: 0, batchExecutes: 0, commits: 0, dedupRows: 0, counterRows: 0 };
  for (const batch of load.batches) {
    const events = new Map(batch.Records.map((record) => {
      const envelope = JSON.parse(record.body) as { eventId: string; occurredAt: string; payload: { pageId: string } };
      return [envelope.eventId, envelope] as const;
    }));
    const fresh = [...events.values()].filter((event) => !applied.has(event.eventId));
    const rows = new Set(fresh.flatMap((event) => pageViewEffects('counters', event.payload.pageId, event.occurredAt).map((effect) => String(effect.key.pk))));
    const duplicates = events.size - fresh.length;
    totals.begins += 1;
    totals.commits += 1;
    totals.executes += 2 + (duplicates > 0 ? 1 : 0) + (fresh.length > 0 ? 2 + (rows.size === 1 ? 1 : 0) : 0);
    totals.batchExecutes += fresh.length > 0 && rows.size > 1 ? 1 : 0;
    totals.dedupRows += fresh.length;
    totals.counterRows += rows.size;
    for (const event of fresh) applied.add(event.eventId);
  }
  return totals;
}

describe('one run through an in-process Data API gateway', () => {
  let gateway: DataApiGateway;
  let client: RDSDataClient;

  beforeAll(async () => {
    gateway = await startDataApiGateway({ postgres: postgres.connection });
    client = new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  });

  afterAll(async () => {
    client?.destroy();
    await gateway?.stop();
  });

  test('makes exactly the model\'s calls and writes exactly its rows, counts exactly, and stores one dedup row per distinct event', async () => {
    const meter = meterDataApi(client);
    const session = new DataApiSession({ client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN });
    const run = await runSql(postgres.connection, session, meter, workload);
    const expected = expectedOf(workload);
    expect(workload.redeliveries).toBeGreaterThan(0);
    expect(workload.inBatchDuplicates).toBeGreaterThan(0);
    expect(run.counts.calls).toEqual({ BeginTransaction: expected.begins, ExecuteStatement: expected.executes, BatchExecuteStatement: expected.batchExecutes, CommitTransaction: expected.commits, RollbackTransaction: 0 });
    expect(run.counts.calls.BeginTransaction).toBe(workload.batches.length);
    const counterRows = Object.entries(run.counts.rowsWritten).filter(([table]) => table !== run.dedupTable).reduce((sum, [, rows]) => sum + rows, 0);
    expect({ dedup: run.counts.rowsWritten[run.dedupTable], counters: counterRows }).toEqual({ dedup: expected.dedupRows, counters: expected.counterRows });
    expect(run.dedupRowsStored).toBe(workload.distinctEvents);
    expect(expected.dedupRows).toBe(workload.distinctEvents);
    expect(run).toMatchObject({ records: workload.deliveries, batches: workload.batches.length, exact: true, extraViews: 0 });
    expect(gateway.service.openTransactions()).toBe(0);
  }, 120_000);
});

describe('measureSql: both profiles, each through a gateway process of its own', () => {
  const profiles: readonly LatencyProfileLabel[] = [{ name: 'none', scale: 1 }, { name: 'aws', scale: 0.1 }];

  test('the same calls and rows under both, exact, per record and per batch; the assumed latency named under aws alone', async () => {
    const report = await measureSql(postgres.connection, workload, profiles, { rounds: 1, warmupEvents: 100, batchSize: 100, seed: 1 });
    const expected = expectedOf(workload);
    const batches = workload.batches.length;
    expect(report.engine).toMatch(/^PostgreSQL \d+/);
    expect(report.profiles.map((profile) => [profile.name, profile.latencyProfile])).toEqual([['local', profiles[0]], ['aws', profiles[1]]]);
    for (const profile of report.profiles) {
      expect(profile.exact).toBe(true);
      expect(profile.callsPerBatch.BeginTransaction).toBe(1);
      expect(profile.callsPerBatch.CommitTransaction).toBe(1);
      expect(profile.callsPerBatch.ExecuteStatement * batches).toBeCloseTo(expected.executes, 9);
      expect(profile.callsPerBatch.BatchExecuteStatement * batches).toBeCloseTo(expected.batchExecutes, 9);
      expect(profile.roundTripsPerEvent * workload.deliveries).toBeCloseTo(expected.begins + expected.executes + expected.batchExecutes + expected.commits, 9);
      expect(profile.dedupRowsPerEvent * workload.deliveries).toBeCloseTo(expected.dedupRows, 9);
      expect(profile.effectRowsPerEvent * workload.deliveries).toBeCloseTo(expected.counterRows, 9);
      expect(profile.eventsPerSecond).toBeGreaterThan(0);
      expect(profile.wallMsPerEvent).toBeGreaterThan(0);
    }
    expect(report.profiles[0]?.dataApiLatency).toBeNull();
    expect(report.profiles[1]?.dataApiLatency).toEqual({ medianMs: DATA_API_ASSUMED_CALL.medianMs * 0.1, p99Ms: DATA_API_ASSUMED_CALL.p99Ms * 0.1, assumed: true, note: DATA_API_ASSUMED_CALL.note });
  }, 180_000);
});
