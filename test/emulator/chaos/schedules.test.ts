/**
 * The chaos property suite: many generated schedules (fault rates, seeds, batch shapes,
 * concurrency, event mix), each on a fresh copy of the stack on the shared local engines, and the
 * invariants checked after every one. A failure prints its seed and the `npm run demo` command
 * that reruns it. `npm run test:chaos` runs 50 schedules; `npm test` runs 10
 * (EO_CHAOS_SCHEDULES overrides; EO_CHAOS_SEED fixes fast-check's own seed). `npm run test:chaos`
 * shrinks a failing schedule (EO_CHAOS_SHRINK=1), which can take many more runs; `npm test`
 * reports the first failing schedule as it is, to keep CI short.
 */
import fc from 'fast-check';
import { scheduleArbitrary } from '../../../emulator/chaos/arbitrary';
import { demoCommand, runSchedule, type Schedule, type ScheduleRun } from '../../../emulator/chaos/schedule';
import type { Engines } from '../../../emulator/engines';
import { ensureSynthesized, type SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { sharedEngines } from '../../helpers/engines';
import { CONSUMER_NAME as PAYMENTS_CONSUMER } from '../../../example/handlers/invoice-payments';

const SCHEDULES = Number(process.env.EO_CHAOS_SCHEDULES ?? 10);
const SHRINK = process.env.EO_CHAOS_SHRINK === '1';
const FAST_CHECK_SEED = process.env.EO_CHAOS_SEED === undefined ? undefined : Number(process.env.EO_CHAOS_SEED);

const totals = { schedules: 0, events: 0, messages: 0, deliveries: 0, duplicateDeliveries: 0, producerRetries: 0, crashes: 0, visibilityExpired: 0, duplicateBatches: 0, throttled: 0, serverErrors: 0, serializationFailures: 0, sqlDeliveries: 0, poison: 0, dlqMessages: 0 };

function addToTotals(run: ScheduleRun): void {
  const { report } = run;
  totals.schedules += 1;
  totals.events += report.published.logicalEvents;
  totals.messages += report.published.messages;
  totals.deliveries += report.deliveries.total;
  totals.duplicateDeliveries += report.deliveries.duplicates;
  totals.producerRetries += report.published.producerRetries;
  totals.crashes += report.faults.crashAfterCommit;
  totals.visibilityExpired += report.faults.visibilityExpired;
  totals.duplicateBatches += report.faults.duplicateBatches;
  totals.throttled += report.faults.throttled;
  totals.serverErrors += report.faults.serverErrors;
  totals.serializationFailures += report.faults.serializationFailures;
  totals.sqlDeliveries += report.consumers?.find((consumer) => consumer.name === PAYMENTS_CONSUMER)?.deliveries ?? 0;
  totals.poison += report.published.poison;
  totals.dlqMessages += report.dlq.messages;
}

let synthesized: SynthesizedStack;
let engines: Engines;

beforeAll(async () => {
  synthesized = await ensureSynthesized();
  // Jest's global setup started the engines; every schedule provisions its own copy of the stack on them.
  engines = sharedEngines();
}, 300_000);

afterAll(() => {
  const lines = Object.entries(totals).map(([name, value]) => `  ${name.padEnd(22)} ${value}`);
  process.stderr.write(`chaos: ${totals.schedules} schedules ran\n${lines.join('\n')}\n`);
});

test(`every invariant holds on ${SCHEDULES} generated fault schedules`, async () => {
  const property = fc.asyncProperty(scheduleArbitrary(), async (schedule: Schedule) => {
    const run = await runSchedule(schedule, { engines, synthesized });
    addToTotals(run);
    if (run.report.violations.length > 0) {
      throw new Error(`schedule seed ${schedule.seed} broke invariants: ${run.report.violations.join('; ')}\nrerun: ${demoCommand(schedule)}`);
    }
  });
  await fc.assert(property, {
    numRuns: SCHEDULES,
    seed: FAST_CHECK_SEED,
    // Each run takes seconds: shrink only when asked, and not for ever.
    endOnFailure: !SHRINK,
    interruptAfterTimeLimit: 40 * 60_000,
    reporter: (details) => {
      if (!details.failed) return;
      const schedule = details.counterexample?.[0] as Schedule | undefined;
      throw new Error(`chaos failure after ${details.numRuns} schedules (fast-check seed ${details.seed}, path ${details.counterexamplePath}):\n${String(details.errorInstance)}${schedule ? `\nrerun: ${demoCommand(schedule)}` : ''}`);
    },
  });
  // The schedules must really have injected faults; otherwise they prove nothing.
  expect(totals.crashes + totals.duplicateBatches).toBeGreaterThan(0);
  expect(totals.duplicateDeliveries).toBeGreaterThan(0);
  // Every schedule has payments: the consumer whose effects are in PostgreSQL ran under them too.
  expect(totals.sqlDeliveries).toBeGreaterThan(0);
}, 45 * 60_000);
