/**
 * `eo dlq list | inspect <queue> | redrive <queue> | policy`: the on-call loop from an alarm to a drained
 * DLQ, against AWS or (`--local`) the stack `eo local up` runs. See docs/operations.md.
 *
 * This module only declares the commands: it loads commander and a few constants, so that
 * `eo dlq --help` is quick. What a command does, and the SDK it needs, is loaded when it runs
 * (dlq-context.ts).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_STACK_NAME, DEFAULT_STATE_FILE } from '../dlq/defaults';
import { FILTER_KEYS } from '../dlq/filter';

/** The flags every `dlq` command takes. */
export interface TargetFlags {
  readonly local?: boolean;
  readonly stack: string;
  readonly state: string;
  readonly region?: string;
  readonly json?: boolean;
}

export interface InspectFlags extends TargetFlags {
  readonly filter: string[];
}

export interface RedriveFlags extends InspectFlags {
  readonly dryRun?: boolean;
  readonly max?: number;
  readonly rate?: number;
  readonly quiet?: boolean;
  readonly allowPastDedupWindow?: boolean;
}

const QUEUE_ARGUMENT = 'name, URL, ARN, output name (PageViewCounterDlqUrl) or a unique part of a name';

/** Adds `dlq list`, `dlq inspect`, `dlq redrive` and `dlq policy` to the program. */
export function registerDlqCommands(program: Command): void {
  const dlq = program.command('dlq').description('triage and redrive the dead-letter queues of the stack (see docs/operations.md)');
  withTargetOptions(dlq.command('list').description('every DLQ and on-failure queue of the stack, with its depth and oldest message age'))
    .action(async (flags: TargetFlags) => (await commands()).runList(flags));
  withFilter(withTargetOptions(dlq.command('inspect').description('what a DLQ holds: failures by error type and consumer, with examples; stream ranges read back').argument('<queue>', QUEUE_ARGUMENT)))
    .action(async (queue: string, flags: InspectFlags) => (await commands()).runInspect(queue, flags));
  withFilter(withTargetOptions(dlq.command('redrive').description('send DLQ messages back to their source (queue or stream); each leaves the DLQ only after its republish succeeded').argument('<queue>', QUEUE_ARGUMENT)))
    .option('--dry-run', 'report what would be redriven; change nothing')
    .option('--max <n>', 'redrive at most n messages', positiveInteger)
    .option('--rate <n>', 'at most n messages per second', positiveNumber)
    .option('--quiet', 'no progress on stderr')
    .option('--allow-past-dedup-window', 'also redrive messages whose copy could outlive the dedup records of an applied copy (and be applied twice); each is noted')
    .action(async (queue: string, flags: RedriveFlags) => (await commands()).runRedrive(queue, flags));
  withTargetOptions(dlq.command('policy').description('print the IAM policy that the identity running eo dlq needs on the stack: each action, on the stack\'s ARNs only (JSON, with or without --json)'))
    .action(async (flags: TargetFlags) => (await commands()).runPolicy(flags));
}

/** The commands' bodies, with the SDK clients and everything they read; loaded on first use. */
function commands(): Promise<typeof import('./dlq-context')> {
  return import('./dlq-context');
}

/** Adds `--local`, `--stack`, `--region`, `--state` and `--json` to a command. */
export function withTargetOptions(command: Command): Command {
  return command
    .option('--local', 'use the local stack that `eo local up` runs (reads its state file) instead of AWS')
    .option('--stack <name>', 'the deployed stack whose resources hold the queues', DEFAULT_STACK_NAME)
    .option('--region <region>', 'AWS region (default: AWS_REGION or the profile\'s)')
    .addOption(new Option('--state <file>', 'the state file of `eo local up`').default(DEFAULT_STATE_FILE))
    .option('--json', 'print machine-readable JSON on stdout');
}

function withFilter(command: Command): Command {
  return command.option('--filter <key=value>', `select messages; repeatable; keys: ${FILTER_KEYS.join(', ')}`, (term: string, terms: string[]) => [...terms, term], []);
}

/** A commander parser of a whole number from 1. */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a whole number >= 1, got "${value}"`);
  return parsed;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return parsed;
}
