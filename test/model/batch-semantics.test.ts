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
 * small to keep `npm test` quick. A third property runs SQS schedules with invocations at once (a
 * batch held past its visibility timeout while a second invocation receives it; on a standard
 * queue, a kept copy of a message delivered again while it is in flight), their calls
 * interleaved by fast-check's scheduler: EO_MODEL_CONCURRENT_SCHEDULES of them, by default as many
 * as EO_MODEL_SCHEDULES. EO_MODEL_SEED replays fast-check's seed, in every property.
 *
 * The clock is virtual: `Date.now` reads the world's time, which each DynamoDB call and Data API
 * call advances, so that the runtime's time budget runs out where the schedule says, whatever
 * this machine's speed.
 */
import fc from 'fast-check';
import { violationsOf } from './invariants';
import { oneAtATimeViolations } from './one-at-a-time';
import { runSchedule, type RunHistory } from './runner';
import type { ModelPlant } from './consumer';
import { concurrentScheduleArbitrary, DYNAMODB_STRATEGIES, scheduleArbitrary, sqlScheduleArbitrary, type Schedule } from './schedule';
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
/** As many as the one-at-a-time ones: each is a DynamoDB schedule with one to three pairs of invocations at once. */
const CONCURRENT_SCHEDULES = Number(process.env.EO_MODEL_CONCURRENT_SCHEDULES ?? SCHEDULES);
const SEED = process.env.EO_MODEL_SEED === undefined ? undefined : Number(process.env.EO_MODEL_SEED);

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

let world: World | undefined;
let sql: SqlModelStore | undefined;
const totals = { schedules: 0, sqlSchedules: 0, invocations: 0, atOnce: 0, duplicateDeliveries: 0, applied: 0, deadLettered: 0, crashes: 0, movedBySqs: 0, onFailureRanges: 0, reportedRecords: 0 };

function addToTotals(history: RunHistory): void {
  totals.schedules += 1;
  if (history.schedule.strategy === 'sql') totals.sqlSchedules += 1;
  totals.invocations += history.invocations.length;
  totals.atOnce += history.invocations.filter((record) => record.atOnceWith !== undefined).length;
  totals.duplicateDeliveries += history.invocations.filter((record) => record.atOnceBecause === 'duplicate-delivery').length / 2;
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

async function check(schedule: Schedule, scheduler?: fc.Scheduler): Promise<void> {
  const history = await runSchedule(schedule, { onStart: (started) => (world = started), sql, scheduler });
  world = undefined;
  addToTotals(history);
  const violations = [...violationsOf(history), ...(sql === undefined ? [] : await oneAtATimeViolations(history, sql))];
  if (violations.length > 0) throw new Error(`${violations.join('\n')}\n\n${describeRun(history)}`);
}

test(`the runtime keeps AWS's batch semantics on ${SCHEDULES} generated schedules`, async () => {
  await fc.assert(fc.asyncProperty(scheduleArbitrary(DYNAMODB_STRATEGIES), (schedule) => check(schedule)), { numRuns: SCHEDULES, seed: SEED });
}, 30 * 60_000);

test(`the SQL strategy keeps them on ${SQL_SCHEDULES} generated schedules, on PostgreSQL`, async () => {
  await fc.assert(fc.asyncProperty(sqlScheduleArbitrary(), (schedule) => check(schedule)), { numRuns: SQL_SCHEDULES, seed: SEED });
}, 30 * 60_000);

test(`it keeps them with invocations at once (a visibility timeout ending mid-batch, a duplicate delivery) on ${CONCURRENT_SCHEDULES} generated schedules and interleavings`, async () => {
  await fc.assert(fc.asyncProperty(concurrentScheduleArbitrary(), fc.scheduler(), check), { numRuns: CONCURRENT_SCHEDULES, seed: SEED });
}, 30 * 60_000);

/**
 * The checker's reach, shown on a bug planted on purpose (ModelPlant): a direct handler that reads
 * the event's item and then puts it unconditionally. Run one invocation at a time, every schedule
 * passes; with invocations at once, fast-check finds two that both read before either writes, and
 * shrinks it to a small schedule and the interleaving that did it. EO_MODEL_PRINT_PLANTED=1 prints
 * that counterexample and its run.
 */
describe('a bug that only an interleaving finds', () => {
  const PLANT: ModelPlant = 'check-then-act';
  const direct = (schedule: Schedule): Schedule => ({ ...schedule, strategy: 'direct' });

  async function plantedViolations(schedule: Schedule, scheduler?: fc.Scheduler): Promise<void> {
    const history = await runSchedule(schedule, { onStart: (started) => (world = started), scheduler, plant: PLANT });
    world = undefined;
    const violations = violationsOf(history);
    if (violations.length > 0) throw new Error(`${violations.join('\n')}\n\n${describeRun(history)}`);
  }

  test('one invocation at a time never catches it', async () => {
    const result = await fc.check(fc.asyncProperty(scheduleArbitrary(DYNAMODB_STRATEGIES).map(direct), (schedule) => plantedViolations(schedule)), { numRuns: 200, seed: SEED });
    expect(result.failed).toBe(false);
  }, 10 * 60_000);

  test('invocations at once do: an event applied twice, shrunk to its schedule and interleaving', async () => {
    const result = await fc.check(fc.asyncProperty(concurrentScheduleArbitrary().map(direct), fc.scheduler(), plantedViolations), { numRuns: 200, seed: SEED });
    if (process.env.EO_MODEL_PRINT_PLANTED === '1') process.stderr.write(`${fc.defaultReportMessage(result) ?? 'no counterexample'}\n\n${String(result.errorInstance)}\n`);
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/applied 2 times/);
  }, 10 * 60_000);
});
