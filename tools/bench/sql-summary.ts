/**
 * The SQL part's figures: its measured rounds reduced to medians and per-record figures, and the
 * report's table of them. SQL has no write units: its figures stand apart from the DynamoDB
 * strategies', in a table of their own, with Data API round trips and rows written instead.
 */
import { latencyLabel, type LatencyFigure, type LatencyProfileLabel } from '../../emulator/gateway';
import { DATA_API_OPERATIONS, type DataApiCounts, type DataApiOperation } from './data-api-meter';
import { median } from './median';
import type { ProfileName } from './profiles';
import { table } from './text-table';

/** One measured round of the SQL consumer over the whole workload. */
export interface SqlRun {
  /** Records delivered (the workload's, redeliveries included). */
  readonly records: number;
  readonly batches: number;
  readonly seconds: number;
  /** Each invocation's wall time rounded up to the millisecond, summed (what Lambda would bill on a full core). */
  readonly billedMs: number;
  readonly counts: DataApiCounts;
  readonly dedupTable: string;
  /** Dedup rows in the table after the run, counted in PostgreSQL: the metered dedup rows, checked. */
  readonly dedupRowsStored: number;
  /** The counts equal the expected ones and every record succeeded within the queue's receives. */
  readonly exact: boolean;
  /** Page views counted too many (negative: too few). */
  readonly extraViews: number;
}

/** The Data API latency the gateway waited per call under a profile, and that it is assumed. */
export interface SqlLatencyAssumption {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** Always true: AWS publishes no latency for the Data API (emulator/gateway/latency-profile.ts). */
  readonly assumed: true;
  readonly note: string;
}

/** The SQL strategy's figures under one latency profile. */
export interface SqlProfileReport {
  readonly name: ProfileName;
  readonly latencyProfile: LatencyProfileLabel;
  /** What each Data API call waited (scaled); null on the bare engine, where nothing waits. */
  readonly dataApiLatency: SqlLatencyAssumption | null;
  /** Median over the measured rounds. */
  readonly eventsPerSecond: number;
  /** Each invocation's wall time rounded up to the millisecond, per record. */
  readonly wallMsPerEvent: number;
  /** Data API calls per record delivered: every call is a round trip. */
  readonly roundTripsPerEvent: number;
  readonly roundTripsPerBatch: number;
  /** Calls per batch, by operation. */
  readonly callsPerBatch: Readonly<Record<DataApiOperation, number>>;
  /** Rows written per record: dedup rows plus effect rows, as the Data API counted them (`numberOfRecordsUpdated` of each INSERT). */
  readonly rowsWrittenPerEvent: number;
  readonly dedupRowsPerEvent: number;
  readonly effectRowsPerEvent: number;
  readonly exact: boolean;
  /** Page views counted too many in the last round (negative: too few). */
  readonly extraViews: number;
  readonly roundsEventsPerSecond: readonly number[];
}

/** Reduces a profile's measured rounds; `figure` is the Data API's latency figure under the profile (ignored on the bare engine). */
export function summarizeSql(latency: LatencyProfileLabel, runs: readonly SqlRun[], figure: LatencyFigure): SqlProfileReport {
  const records = runs.reduce((sum, run) => sum + run.records, 0);
  const batches = runs.reduce((sum, run) => sum + run.batches, 0);
  const calls = (operation: DataApiOperation): number => runs.reduce((sum, run) => sum + run.counts.calls[operation], 0);
  const roundTrips = DATA_API_OPERATIONS.reduce((sum, operation) => sum + calls(operation), 0);
  const dedupRows = runs.reduce((sum, run) => sum + (run.counts.rowsWritten[run.dedupTable] ?? 0), 0);
  const allRows = runs.reduce((sum, run) => sum + Object.values(run.counts.rowsWritten).reduce((rows, count) => rows + count, 0), 0);
  return {
    name: latency.name === 'none' ? 'local' : latency.name,
    latencyProfile: latency,
    dataApiLatency: latency.name === 'none' ? null : { medianMs: figure.medianMs * latency.scale, p99Ms: figure.p99Ms * latency.scale, assumed: true, note: figure.note },
    eventsPerSecond: median(runs.map((run) => run.records / run.seconds)),
    wallMsPerEvent: ratio(runs.reduce((sum, run) => sum + run.billedMs, 0), records),
    roundTripsPerEvent: ratio(roundTrips, records),
    roundTripsPerBatch: ratio(roundTrips, batches),
    callsPerBatch: Object.fromEntries(DATA_API_OPERATIONS.map((operation) => [operation, ratio(calls(operation), batches)])) as Record<DataApiOperation, number>,
    rowsWrittenPerEvent: ratio(allRows, records),
    dedupRowsPerEvent: ratio(dedupRows, records),
    effectRowsPerEvent: ratio(allRows - dedupRows, records),
    exact: runs.length > 0 && runs.every((run) => run.exact),
    extraViews: runs.at(-1)?.extraViews ?? 0,
    roundsEventsPerSecond: runs.map((run) => run.records / run.seconds),
  };
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? part / whole : 0;
}

/** The SQL part's heading, its table (one row per profile), the assumption it ran under, and a blank line; nothing when it did not run. */
export function sqlLines(sql: { readonly engine: string; readonly profiles: readonly SqlProfileReport[] } | null): string[] {
  if (sql === null || sql.profiles.length === 0) return [];
  const header = ['profile', 'events/s', 'wall ms/event', 'round trips/event', 'round trips/batch', 'Begin', 'Execute', 'BatchExecute', 'Commit', 'Rollback', 'dedup rows/event', 'effect rows/event', 'rows/event', 'exact'];
  const rows = sql.profiles.map((profile) => [
    profile.name,
    profile.eventsPerSecond.toFixed(0),
    profile.wallMsPerEvent.toFixed(3),
    profile.roundTripsPerEvent.toFixed(4),
    profile.roundTripsPerBatch.toFixed(2),
    ...DATA_API_OPERATIONS.map((operation) => profile.callsPerBatch[operation].toFixed(2)),
    profile.dedupRowsPerEvent.toFixed(3),
    profile.effectRowsPerEvent.toFixed(3),
    profile.rowsWrittenPerEvent.toFixed(3),
    profile.exact ? 'yes' : `NO (${profile.extraViews > 0 ? '+' : ''}${profile.extraViews} views)`,
  ]);
  return [
    `SQL strategy (sqlStrategy over DataApiSession, through the local Data API gateway on ${sql.engine}): the same records, one consumer, batches one after another; ` +
      'round trips are Data API calls counted by the client (Begin, Execute, BatchExecute, Commit, Rollback per batch); rows written are what the Data API answered to each INSERT ' +
      '(numberOfRecordsUpdated) and one per increment (its own count leaves out the row its UPDATE wrote), dedup rows and counter rows; no write units (SQL has none)',
    table(header, rows),
    ...sql.profiles.filter((profile) => profile.dataApiLatency !== null).map((profile) => assumptionLine(profile)),
    '',
  ];
}

function assumptionLine(profile: SqlProfileReport): string {
  const latency = profile.dataApiLatency as SqlLatencyAssumption;
  return `Profile ${profile.name} (latency ${latencyLabel(profile.latencyProfile)}): each Data API call waited a draw of median ${latency.medianMs} ms, p99 ${latency.p99Ms} ms, ASSUMED (AWS publishes no Data API latency): ${latency.note}`;
}
