/**
 * The model-based test of the runtime: fast-check generates schedules (test/model/schedule.ts),
 * each runs the real consumer and strategies against the reference models of AWS's batch
 * semantics (aws/model) until the model says the source is drained, and the checker
 * (test/model/invariants.ts) holds the whole history to the invariants. A failure shrinks to a
 * small schedule and prints it with its run, its seed and its path.
 *
 * `npm test` runs EO_MODEL_SCHEDULES (default 300) schedules of the DynamoDB strategies; `npm run
 * test:model` runs 10,000. The `sql` strategy's schedules run as the runtime runs on AWS: through
 * `DataApiSession` and the local Data API gateway (under both behaviours of a failed statement) on
 * a real PostgreSQL, started once for the file (test/model/sql-store.ts), as a property of their
 * own: EO_MODEL_SQL_SCHEDULES of them, by default a tenth of EO_MODEL_SCHEDULES (30, 1,000), each
 * also held to the one-at-a-time replay of its decisions (test/model/one-at-a-time.ts). Each costs
 * some 0.15 to 0.7 s on two shared cores (every Data API call is an HTTP request of a few ms, a
 * dozen of them per invocation, and the replay), and the start about 2 s, so that the share stays
 * small to keep `npm test` quick. EO_MODEL_SEED replays fast-check's seed, in both properties.
 *
 * The clock is virtual: `Date.now` reads the world's time, which each DynamoDB call and Data API
 * call advances, so that the runtime's time budget runs out where the schedule says, whatever
 * this machine's speed.
 */
import fc from 'fast-check';
import { violationsOf } from './invariants';
import { oneAtATimeViolations } from './one-at-a-time';
import { runSchedule, type RunHistory } from './runner';
import { DYNAMODB_STRATEGIES, scheduleArbitrary, sqlScheduleArbitrary, type Schedule } from './schedule';
import { SqlModelStore } from './sql-store';
import { describeRun } from './trace';
import type { World } from './world';

const SCHEDULES = Number(process.env.EO_MODEL_SCHEDULES ?? 300);
/**
 * A tenth of the DynamoDB ones: on the Data API path a schedule costs some 0.15 to 0.7 s (two
 * shared cores), so test:model's 1,000 take about 3 minutes on an idle machine, and many more on a
 * loaded one. EO_MODEL_SQL_SCHEDULES sets any count.
 */
const SQL_SCHEDULES = Number(process.env.EO_MODEL_SQL_SCHEDULES ?? Math.ceil(SCHEDULES / 10));
const SEED = process.env.EO_MODEL_SEED === undefined ? undefined : Number(process.env.EO_MODEL_SEED);

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

let world: World | undefined;
let sql: SqlModelStore | undefined;
const totals = { schedules: 0, sqlSchedules: 0, invocations: 0, applied: 0, deadLettered: 0, crashes: 0, movedBySqs: 0, onFailureRanges: 0, reportedRecords: 0 };

function addToTotals(history: RunHistory): void {
  totals.schedules += 1;
  if (history.schedule.strategy === 'sql') totals.sqlSchedules += 1;
  totals.invocations += history.invocations.length;
  totals.applied += history.world.appliedLog.length;
  totals.deadLettered += history.invocations.reduce((sum, record) => sum + record.dlqSends.length, 0);
  totals.crashes += history.invocations.filter((record) => record.crashed).length;
  totals.movedBySqs += history.source.movedBySqs.length;
  totals.onFailureRanges += history.source.onFailure.length;
  totals.reportedRecords += history.invocations.reduce((sum, record) => sum + (record.answer === 'failed' ? 0 : record.answer.batchItemFailures.length), 0);
}
const realNow = Date.now.bind(Date);

beforeAll(async () => {
  sql = await SqlModelStore.start();
  jest.spyOn(Date, 'now').mockImplementation(() => world?.now ?? realNow());
}, 60_000);

afterAll(async () => {
  jest.restoreAllMocks();
  await sql?.stop();
  process.stderr.write(`model: ${Object.entries(totals).map(([name, value]) => `${name} ${value}`).join(', ')}\n`);
});

async function check(schedule: Schedule): Promise<void> {
  const history = await runSchedule(schedule, { onStart: (started) => (world = started), sql });
  world = undefined;
  addToTotals(history);
  const violations = [...violationsOf(history), ...(sql === undefined ? [] : await oneAtATimeViolations(history, sql))];
  if (violations.length > 0) throw new Error(`${violations.join('\n')}\n\n${describeRun(history)}`);
}

test(`the runtime keeps AWS's batch semantics on ${SCHEDULES} generated schedules`, async () => {
  await fc.assert(fc.asyncProperty(scheduleArbitrary(DYNAMODB_STRATEGIES), check), { numRuns: SCHEDULES, seed: SEED });
}, 30 * 60_000);

test(`the SQL strategy keeps them on ${SQL_SCHEDULES} generated schedules, on PostgreSQL`, async () => {
  await fc.assert(fc.asyncProperty(sqlScheduleArbitrary(), check), { numRuns: SQL_SCHEDULES, seed: SEED });
}, 30 * 60_000);
