/**
 * `eo dlq list | inspect <queue> | redrive <queue>`: the on-call loop from an alarm to a drained
 * DLQ, against AWS or (`--local`) the stack `eo local up` runs. See docs/operations.md.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { createProgress } from '../demo/progress';
import { depthOf } from '../queues/peek';
import { findDlq, inspectQueue, listDlqs, parseFilter, redriveQueue, FILTER_KEYS, type RedriveResult } from '../dlq';
import { withContext, withTargetOptions, type OpenContext, type TargetFlags } from './dlq-context';
import { formatInspection, formatListing, formatRedrive } from './dlq-output';

interface InspectFlags extends TargetFlags {
  readonly filter: string[];
}

interface RedriveFlags extends InspectFlags {
  readonly dryRun?: boolean;
  readonly max?: number;
  readonly rate?: number;
  readonly quiet?: boolean;
}

/** Adds `dlq list`, `dlq inspect` and `dlq redrive` to the program. */
export function registerDlqCommands(program: Command): void {
  const dlq = program.command('dlq').description('triage and redrive the dead-letter queues of the stack (see docs/operations.md)');
  withTargetOptions(dlq.command('list').description('every DLQ and on-failure queue of the stack, with its depth and oldest message age')).action(list);
  withFilter(withTargetOptions(dlq.command('inspect').description('what a DLQ holds: failures by error type and consumer, with examples; stream ranges read back').argument('<queue>', 'name, URL, ARN, output name (PageViewCounterDlqUrl) or a unique part of a name'))).action(inspect);
  withFilter(withTargetOptions(dlq.command('redrive').description('send DLQ messages back to their source (queue or stream); each leaves the DLQ only after its republish succeeded').argument('<queue>', 'name, URL, ARN, output name or a unique part of a name')))
    .option('--dry-run', 'report what would be redriven; change nothing')
    .option('--max <n>', 'redrive at most n messages', positiveInteger)
    .option('--rate <n>', 'at most n messages per second', positiveNumber)
    .option('--quiet', 'no progress on stderr')
    .action(redrive);
}

function withFilter(command: Command): Command {
  return command.option('--filter <key=value>', `select messages; repeatable; keys: ${FILTER_KEYS.join(', ')}`, (term: string, terms: string[]) => [...terms, term], []);
}

async function list(flags: TargetFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const listings = await listDlqs(context);
    print(flags, listings, () => formatListing(context.label, listings));
  });
}

async function inspect(queue: string, flags: InspectFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const inspection = await inspectQueue({ ...context, queue }, { filter: parseFilter(flags.filter) });
    print(flags, inspection, () => formatInspection(context.label, inspection));
  });
}

async function redrive(queue: string, flags: RedriveFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const result = await runRedrive(context, queue, flags);
    print(flags, result, () => formatRedrive(context.label, result));
    if (result.failed > 0) process.exitCode = 1;
  });
}

async function runRedrive(context: OpenContext, queue: string, flags: RedriveFlags): Promise<RedriveResult> {
  const filter = parseFilter(flags.filter);
  const depth = await depthOf(context.clients.sqs, findDlq(context.topology, queue).url);
  const progress = createProgress(process.stderr, flags.quiet);
  let seen = 0;
  progress.phase(`${flags.dryRun ? 'dry run: reading' : 'redriving'} ${depth.visible} message(s)`);
  try {
    return await redriveQueue({ ...context, queue }, { dryRun: flags.dryRun, filter, max: flags.max, rate: flags.rate, onMessage: () => progress.update('messages', (seen += 1), Math.max(seen, depth.visible)) });
  } finally {
    progress.done();
  }
}

function print(flags: TargetFlags, data: unknown, human: () => string): void {
  process.stdout.write(`${flags.json ? JSON.stringify(data, null, 2) : human()}\n`);
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a whole number >= 1, got "${value}"`);
  return parsed;
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return parsed;
}
