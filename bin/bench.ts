#!/usr/bin/env node
/**
 * `npm run bench`: the dedup strategies side by side against DynamoDB Local (fauxqs for the
 * end-to-end part, PostgreSQL behind a local Data API for the SQL part), all started here on free
 * ports and stopped at the end. Progress on stderr,
 * the tables on stdout, `--json FILE` (or `-` for stdout) for machines. Exit code 0 when every
 * strategy that dedups counted exactly, 1 when one did not, 2 on bad options or a failed run.
 */
import { statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { BENCH_DEFAULTS, planBenchmark, REDELIVERY_PATTERNS, reportJson, reportTables, runBenchmark, SELECTABLE_STRATEGIES, SQL_STRATEGY, WORKLOAD_DEFAULTS, type BenchmarkPlan, type BenchmarkReport, type RedeliveryPattern, type SelectableStrategy, type StrategyName } from '../tools/bench';
import { createProgress, type Progress } from '../cli/progress';
import { startEngines } from '../emulator/engines';
import { startPostgres } from '../emulator/engines/postgres';
import type { LatencyProfileLabel } from '../emulator/gateway';
import { addLatencyOptions, latencyOf, type LatencyFlags } from '../emulator/cli/latency-options';

// Keep the consumers' log lines and EMF metrics (one of each per batch) off the output; every strategy pays the same.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

function wholeNumber(min: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(`expected a whole number >= ${min}, got "${value}"`);
    return parsed;
  };
}

function rate(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed >= 0.5) throw new InvalidArgumentError(`expected a rate in [0, 0.5), got "${value}"`);
  return parsed;
}

function crashRate(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !(parsed > 0 && parsed <= 1)) throw new InvalidArgumentError(`expected a rate in (0, 1], got "${value}"`);
  return parsed;
}

function strategyList(value: string): SelectableStrategy[] {
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SELECTABLE_STRATEGIES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown strategies "${unknown.join(', ')}"; expected some of ${SELECTABLE_STRATEGIES.join(', ')}`);
  return names as SelectableStrategy[];
}

/** The DynamoDB strategies of a selection, and whether it names the SQL part. */
function splitSelection(selection: readonly SelectableStrategy[]): { strategies: StrategyName[]; sql: boolean } {
  return { strategies: selection.filter((name): name is StrategyName => name !== SQL_STRATEGY), sql: selection.includes(SQL_STRATEGY) };
}

/** A comma-separated list of consumer counts, e.g. `1,4,16`; the plan checks their range. */
function countList(value: string): number[] {
  const counts = value.split(',').map((part) => part.trim());
  const bad = counts.filter((part) => part === '' || !Number.isInteger(Number(part)) || Number(part) < 1);
  if (bad.length > 0) throw new InvalidArgumentError(`expected comma-separated whole numbers >= 1, got "${value}"`);
  return counts.map(Number);
}

/** `-`, or a file in a directory that exists: checked now rather than after a run of minutes. */
function jsonTarget(value: string): string {
  if (value === '-') return value;
  const directory = path.dirname(path.resolve(value));
  if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) throw new InvalidArgumentError(`no directory ${directory} to write ${value} in`);
  return value;
}

interface BenchFlags extends LatencyFlags {
  events: number;
  rounds: number;
  warmup: number;
  seed: number;
  duplicateRate: number;
  redeliveries: RedeliveryPattern;
  strategies: SelectableStrategy[];
  coldStartSamples: number;
  e2eMessages: number;
  hotItemEvents: number;
  hotItemConsumers: number[];
  hotItemShards: number;
  crashWindowEvents: number;
  crashWindowRate: number;
  crashWindowTimeout: number;
  json?: string;
  quiet?: boolean;
}

const command = new Command('bench')
  .description('Benchmark the dedup strategies (naive, powertools, direct, transactional, batch) side by side on DynamoDB Local, and the SQL strategy (sql) through a local Data API on PostgreSQL, bare or under a latency profile')
  .option('--events <n>', 'records per round, duplicates included', wholeNumber(1), BENCH_DEFAULTS.events)
  .option('--rounds <n>', 'measured rounds (the median is reported)', wholeNumber(1), BENCH_DEFAULTS.rounds)
  .option('--warmup <n>', 'records of the unmeasured warm-up round (0: none)', wholeNumber(0), BENCH_DEFAULTS.warmupEvents)
  .option('--seed <n>', 'seed of the generated workload', wholeNumber(0), BENCH_DEFAULTS.seed)
  .option('--duplicate-rate <rate>', 'share of records that repeat an earlier event (half in-batch, half redeliveries)', rate, WORKLOAD_DEFAULTS.duplicateRate)
  .addOption(new Option('--redeliveries <pattern>', 'how redeliveries fall into later batches').choices([...REDELIVERY_PATTERNS]).default(WORKLOAD_DEFAULTS.redeliveries))
  .option('--strategies <list>', 'comma-separated strategies to run (sql: the SQL part, on PostgreSQL)', strategyList, [...SELECTABLE_STRATEGIES])
  .option('--cold-start-samples <n>', 'fresh processes per handler bundle (0: skip the cold-start part)', wholeNumber(0), BENCH_DEFAULTS.coldStartSamples)
  .option('--e2e-messages <n>', 'messages through fauxqs for the end-to-end part (0: skip it)', wholeNumber(0), BENCH_DEFAULTS.endToEndMessages)
  .option('--hot-item-events <n>', 'records of each hot-item case, concurrent consumers through the contract layer (0: skip the part)', wholeNumber(0), BENCH_DEFAULTS.hotItemEvents)
  .option('--hot-item-consumers <list>', 'comma-separated concurrent consumer counts of the hot-item cases', countList, [...BENCH_DEFAULTS.hotItemConsumers])
  .option('--hot-item-shards <n>', 'shards of the sharded hot-item cases (2..1000)', wholeNumber(2), BENCH_DEFAULTS.hotItemShards)
  .option('--crash-window-events <n>', 'records of the crash-window part, invocations dying after their effects (0: skip it)', wholeNumber(0), BENCH_DEFAULTS.crashWindowEvents)
  .option('--crash-window-rate <rate>', 'share of the crash-window batches whose first invocation dies (0..1]', crashRate, BENCH_DEFAULTS.crashWindowRate)
  .option('--crash-window-timeout <ms>', 'function timeout of the crash-window invocations, after which a crashed batch comes back', wholeNumber(1000), BENCH_DEFAULTS.crashWindowTimeoutMs)
  .option('--json <file>', 'write the report as JSON to this file (- for stdout)', jsonTarget)
  .option('--quiet', 'no progress on stderr');
const program = addLatencyOptions(command)
  .action(async (flags: BenchFlags) => {
    process.exitCode = await bench(flags);
  })
  .exitOverride();

async function bench(flags: BenchFlags): Promise<number> {
  const latency = latencyOf(flags);
  const progress = createProgress(process.stderr, flags.quiet);
  const plan = planBenchmark({
    events: flags.events,
    rounds: flags.rounds,
    warmupEvents: flags.warmup,
    seed: flags.seed,
    duplicateRate: flags.duplicateRate,
    redeliveries: flags.redeliveries,
    ...splitSelection(flags.strategies),
    coldStartSamples: flags.coldStartSamples,
    endToEndMessages: flags.e2eMessages,
    hotItemEvents: flags.hotItemEvents,
    hotItemConsumers: flags.hotItemConsumers,
    hotItemShards: flags.hotItemShards,
    crashWindowEvents: flags.crashWindowEvents,
    crashWindowRate: flags.crashWindowRate,
    crashWindowTimeoutMs: flags.crashWindowTimeout,
    progress,
  });
  const report = await runOnLocalEngines(plan, latency, progress);
  output(report, flags.json);
  const inexact = inexactDeduplicators(report);
  if (inexact.length > 0) process.stderr.write(`FAIL: ${inexact.join(', ')} did not count exactly\n`);
  return inexact.length === 0 ? 0 : 1;
}

async function runOnLocalEngines(plan: BenchmarkPlan, latency: LatencyProfileLabel, progress: Progress): Promise<BenchmarkReport> {
  const withSqs = plan.settings.endToEndMessages > 0;
  progress.phase(`starting DynamoDB Local${withSqs ? ', fauxqs' : ''}${plan.settings.sql ? ' and PostgreSQL' : ''}`);
  const engines = await startEngines({ dynamodb: true, sqs: withSqs, kinesis: false });
  const postgres = plan.settings.sql ? await startPostgres().catch(async (error: unknown) => {
    await engines.stop();
    throw error;
  }) : undefined;
  try {
    // Under a latency profile, DynamoDB's and the Data API's requests go through a contract layer that waits it; the end-to-end part's SQS does not.
    return await runBenchmark({ dynamodb: engines.endpoints.dynamodb as string, sqs: engines.endpoints.sqs, latency, postgres: postgres?.connection }, plan);
  } finally {
    await postgres?.stop();
    await engines.stop();
  }
}

/** The tables on stdout, and the JSON to its file; `--json -` puts the JSON alone on stdout. */
function output(report: BenchmarkReport, json: string | undefined): void {
  if (json === '-') {
    process.stdout.write(reportJson(report));
    return;
  }
  process.stdout.write(`${reportTables(report)}\n`);
  if (json) writeFileSync(json, reportJson(report));
}

/**
 * Every strategy but `naive` promises exact counts, under every profile and in every hot-item case;
 * no strategy may lose an effect to a crash, and those that commit the dedup record with the effect
 * may not apply one twice.
 */
function inexactDeduplicators(report: BenchmarkReport): string[] {
  const strategies = report.profiles.flatMap((profile) => profile.strategies.filter((strategy) => strategy.name !== 'naive' && !strategy.exact).map((strategy) => `${strategy.name} (${profile.name})`));
  const sql = (report.sql?.profiles ?? []).filter((profile) => !profile.exact).map((profile) => `${SQL_STRATEGY} (${profile.name})`);
  const hotItems = report.hotItem.filter((row) => !row.exact || !row.noSharedCounter.exact).map((row) => `${row.strategy} (hot item, ${row.shards} shards, ${row.consumers} consumers)`);
  const crashes = report.crashWindow.filter((row) => row.lost > 0 || (TRANSACTIONAL_STRATEGIES.has(row.strategy) && row.appliedTwice > 0)).map((row) => `${row.strategy} (crash window, ${row.point})`);
  return [...strategies, ...sql, ...hotItems, ...crashes];
}

/** The strategies whose dedup record commits in the effect's transaction: a crash can never make them apply an event twice. */
const TRANSACTIONAL_STRATEGIES: ReadonlySet<string> = new Set(['transactional', 'batch']);

program.parseAsync().catch((error: unknown) => {
  // Commander has printed its own message (a bad flag) or the help already.
  if (!(error instanceof CommanderError)) process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof CommanderError && error.exitCode === 0 ? 0 : 2;
});
