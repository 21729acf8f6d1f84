#!/usr/bin/env node
/**
 * The effectively-once CLI: `demo` runs the main job locally. Run it with `npm run eo -- <command>`
 * (or `npm run demo` for the demo with its defaults).
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { registerDlqCommands } from '../local/cli/dlq-commands';
import { registerLocalCommands } from '../local/cli/local-commands';
import { registerDocsCommands } from '../local/cli/docs-commands';
import { registerNewCommands } from '../local/cli/new-commands';
import { createProgress } from '../local/demo/progress';
import { abortedReport, abortedTable, DemoAbortedError } from '../local/demo/abort';
import { summaryTable, type DemoReport } from '../local/demo/report';
import { DEMO_DEFAULTS, runDemo } from '../local/demo/run';

// The SDK's notice that its 2027 releases need Node.js 22 would break the progress bar; the README says it once.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

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

interface DemoFlags {
  events: number;
  seed: number;
  duplicateRate: number;
  producerRetryRate: number;
  crashRate: number;
  slowRate: number;
  throttleRate: number;
  serverErrorRate: number;
  poisonRate: number;
  schemaV2Rate: number;
  json?: string;
  dumpDir?: string;
  quiet?: boolean;
  pageViewShare?: number;
  sqsBatchSize?: number;
  sqsBatchingWindow?: number;
  streamBatchSize?: number;
  concurrency?: number;
  timeScale?: number;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return parsed;
}

const program = new Command('eo').description('effectively-once: event pipelines that stay correct under at-least-once delivery');

program
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
  .addOption(rateOption('--poison-rate', 'share of events that are malformed or of an unknown type', DEMO_DEFAULTS.poisonRate))
  .addOption(rateOption('--schema-v2-rate', 'share of page views in the later schema 2', DEMO_DEFAULTS.schemaV2Rate))
  .option('--json <file>', 'write the JSON report to a file (- for stdout)')
  .option('--dump-dir <dir>', 'write published.jsonl, state.json and the functions\' log here')
  .option('--quiet', 'no progress output')
  .addOption(rateOption('--page-view-share', 'share of valid events that are page views (the rest are order changes)', 0.7))
  .addOption(new Option('--sqs-batch-size <n>', 'replace the template\'s SQS batch size').argParser(wholeNumber))
  .addOption(new Option('--sqs-batching-window <seconds>', 'replace the template\'s SQS batching window').argParser(wholeNumber))
  .addOption(new Option('--stream-batch-size <n>', 'replace the template\'s stream batch sizes').argParser(wholeNumber))
  .addOption(new Option('--concurrency <n>', 'SQS pollers per mapping and execution environments per function').argParser(wholeNumber).default(2))
  .addOption(new Option('--time-scale <factor>', 'local seconds per template second for visibility timeouts, alarm periods and function timeouts (which keep a 5 s floor)').argParser(positiveNumber).default(1 / 60))
  .action(async (flags: DemoFlags) => {
    try {
      const report = await runDemo({ ...flags, progress: createProgress(process.stderr, flags.quiet) });
      printReport(report, summaryTable(report), flags.json);
      process.exitCode = report.violations.length === 0 ? 0 : 1;
    } catch (error) {
      if (!(error instanceof DemoAbortedError)) throw error;
      // A run that stopped early failed an invariant too (nothing could be verified): the report says where it stopped.
      process.stderr.write(`eo: ${error.message}\n`);
      printReport(abortedReport(error, flags.seed), abortedTable(error, flags.seed), flags.json);
      process.exitCode = 1;
    }
  });

function printReport(report: DemoReport | ReturnType<typeof abortedReport>, table: string, json: string | undefined): void {
  if (json === '-') {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  if (json) writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`${table}\n`);
}

registerNewCommands(program);
registerDocsCommands(program);

registerLocalCommands(program);
registerDlqCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`eo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
});
