/**
 * `eo local up`: runs the synthesized stack on the local engines until Ctrl-C, prints the
 * endpoints and the lines that point the AWS CLI and SDK at them, and writes the state file that
 * `eo dlq ... --local` reads, with an AWS config file and an env file beside it
 * (./aws-cli-config.ts).
 */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import { createProgress } from '../../cli/progress';
import { DEFAULT_STATE_FILE, removeLocalState, writeLocalState, type LocalStateFile } from '../../operations/dlq';
import { localStateOf } from '../stack/dlq-context';
import { fileOutput, initFailureSummary, type InitFailure, type InitFailureListener } from '../functions';
import { startLocalStack } from '../stack/runtime';
import { AWS_ENV_FILE_NAME, awsCliFilesBeside, awsCliInstructions, removeAwsCliFiles, writeAwsCliFiles } from './aws-cli-config';
import { sourceLabel } from '../../operations/cli/dlq-output';
import { renderTable } from '../../cli/table';

interface UpFlags {
  readonly state: string;
  readonly functionsLog: string;
  readonly quiet?: boolean;
}

/** Adds `local up` to the program. */
export function registerLocalCommands(program: Command): void {
  const local = program.command('local').description('the stack on local engines (DynamoDB Local, fauxqs, kinesalite)');
  local
    .command('up')
    .description('start the synthesized stack on local engines and keep it running until Ctrl-C; prints endpoints and `export` lines')
    .addOption(new Option('--state <file>', 'where to write the state that `eo dlq ... --local` reads').default(DEFAULT_STATE_FILE))
    .addOption(new Option('--functions-log <file>', 'where the functions\' stdout and stderr go').default(path.join('.eo', 'functions.log')))
    .option('--quiet', 'no progress output')
    .action(up);
}

async function up(flags: UpFlags): Promise<void> {
  const progress = createProgress(process.stderr, flags.quiet);
  mkdirSync(path.dirname(flags.functionsLog), { recursive: true });
  const log = fileOutput(flags.functionsLog);
  try {
    const stack = await startLocalStack({
      output: log.sink,
      onInitFailure: initFailurePrinter(flags.functionsLog),
      // A user's AWS CLI (or a function) that sends what AWS would refuse should hear why, where they look.
      onRefusal: (line, kind) => {
        if (kind !== 'conflict') process.stderr.write(`eo: AWS would refuse this: ${line}\n`);
      },
      onPhase: (phase) => progress.phase(phase),
    });
    const state = localStateOf(stack);
    const awsCliFiles = awsCliFilesBeside(flags.state);
    writeLocalState(flags.state, state);
    writeAwsCliFiles(awsCliFiles, state);
    process.stdout.write(`${banner(state, flags)}\n`);
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
  const dlqs = renderTable(['dead-letter queue', 'fed by'], topology.deadLetterQueues.map((dlq) => [dlq.name, dlq.sources.map((source) => `${source.role}: ${sourceLabel(source.arn)}`).join(', ')]));
  return [
    `The local stack ${topology.stackName} is up.`,
    `  DynamoDB and DynamoDB Streams  ${endpoints.dynamodb}`,
    `  SQS and SNS (fauxqs)           ${endpoints.sqs}`,
    `  Kinesis (kinesalite)           ${endpoints.kinesis}`,
    '',
    outputs,
    dlqs,
    '',
    ...awsCliInstructions(state, awsCliFilesBeside(flags.state), path.join(path.dirname(flags.state), AWS_ENV_FILE_NAME)),
    '(SDK clients must also set useQueueUrlAsEndpoint: false for SQS, and an HTTP/1.1 handler for Kinesis; see emulator/engines/clients.ts.)',
    '',
    `State: ${flags.state} (read by \`npm run eo -- dlq list --local\`); functions' log: ${flags.functionsLog}`,
    'Press Ctrl-C to stop.',
  ].join('\n');
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
