/**
 * What the `dlq` commands do, where they are aimed: the deployed stack on AWS (or an endpoint the
 * environment names), or with `--local` the stack `eo local up` runs. dlq-commands.ts loads this
 * module when a command runs.
 *
 * Nothing here, nor in what it imports, may load a devDependency or local/engines: an operator's
 * install (the package, production dependencies only) runs these commands
 * (test/operations/aws/import-chain.test.ts).
 */
import { createProgress } from '../../cli/progress';
import { printableLines } from '../../cli/terminal-text';
import { awsDlqContext } from '../dlq/aws-context';
import { describeFilter, parseFilter } from '../dlq/filter';
import { inspectQueue } from '../dlq/inspect';
import { listDlqs } from '../dlq/list';
import { localDlqContext, readLocalState } from '../dlq/local-state';
import { operatorPolicy } from '../dlq/operator-policy';
import { needing } from '../dlq/permissions';
import { redriveQueue, type RedriveResult } from '../dlq/redrive';
import { findDlq } from '../dlq/topology';
import type { ServiceEndpoints } from '../dlq/endpoints';
import type { DlqContext } from '../dlq/types';
import { depthOf } from '../../aws/sqs/peek';
import type { InspectFlags, RedriveFlags, TargetFlags } from './dlq-commands';
import { formatInspection, formatListing, formatRedrive } from './dlq-output';

export interface OpenContext extends DlqContext {
  /** `EffectivelyOnce (local)`, `EffectivelyOnce (us-east-1)` or `EffectivelyOnce (us-east-1, via http://localhost:5000)`. */
  readonly label: string;
  destroy(): void;
}

/** Clients and topology for the flags; the caller destroys the clients when done. */
export async function openContext(flags: TargetFlags): Promise<OpenContext> {
  if (flags.local) {
    const context = localDlqContext(readLocalState(flags.state));
    return { ...context, label: `${context.topology.stackName} (local)` };
  }
  const context = await awsDlqContext({ stackName: flags.stack, region: flags.region });
  return { ...context, label: `${context.topology.stackName} (${context.topology.region}${viaEndpoints(context.endpoints)})` };
}

/** `, via http://localhost:5000` when the environment points the clients away from AWS. */
function viaEndpoints(endpoints: ServiceEndpoints): string {
  const distinct = [...new Set(Object.values(endpoints))];
  return distinct.length === 0 ? '' : `, via ${distinct.join(', ')}`;
}

/** Runs `body` with an open context and closes its clients however it ends. */
export async function withContext<T>(flags: TargetFlags, body: (context: OpenContext) => Promise<T>): Promise<T> {
  const context = await openContext(flags);
  try {
    return await body(context);
  } finally {
    context.destroy();
  }
}

/** `eo dlq list`. */
export async function runList(flags: TargetFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const listings = await listDlqs(context);
    print(flags, listings, () => formatListing(context.label, listings));
  });
}

/** `eo dlq inspect <queue>`. */
export async function runInspect(queue: string, flags: InspectFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const inspection = await inspectQueue({ ...context, queue }, { filter: parseFilter(flags.filter) });
    print(flags, inspection, () => formatInspection(context.label, inspection));
  });
}

/** `eo dlq redrive <queue>`: exit code 1 when a message failed or was refused. */
export async function runRedrive(queue: string, flags: RedriveFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const result = await redriveWithProgress(context, queue, flags);
    print(flags, result, () => formatRedrive(context.label, result));
    if (result.failed > 0 || result.refused > 0) process.exitCode = 1;
  });
}

async function redriveWithProgress(context: OpenContext, queue: string, flags: RedriveFlags): Promise<RedriveResult> {
  const filter = parseFilter(flags.filter);
  const dlq = findDlq(context.topology, queue);
  const depth = await needing({ action: 'sqs:GetQueueAttributes', resource: dlq.arn }, () => depthOf(context.clients.sqs, dlq.url));
  const progress = createProgress(process.stderr, flags.quiet);
  let seen = 0;
  progress.phase(redrivePhase(depth.visible, flags));
  try {
    return await redriveQueue({ ...context, queue }, { dryRun: flags.dryRun, filter, max: flags.max, rate: flags.rate, allowPastDedupWindow: flags.allowPastDedupWindow, onMessage: () => progress.update('messages', (seen += 1), Math.max(seen, depth.visible)) });
  } finally {
    progress.done();
  }
}

/**
 * The progress line: how many messages the run reads. With a filter it cannot know how many it
 * will redrive until it has read them, so it does not say it redrives them all.
 */
export function redrivePhase(visible: number, flags: Pick<RedriveFlags, 'dryRun' | 'filter'>): string {
  const filter = describeFilter(parseFilter(flags.filter));
  const reading = `${flags.dryRun ? 'dry run: ' : ''}reading ${visible} message(s)`;
  if (filter) return `${reading} to redrive those matching ${filter}`;
  return flags.dryRun ? reading : `redriving ${visible} message(s)`;
}

/** `eo dlq policy`: the operator's IAM policy for the stack, a JSON document either way. */
export async function runPolicy(flags: TargetFlags): Promise<void> {
  await withContext(flags, async (context) => {
    process.stdout.write(`${JSON.stringify(operatorPolicy(context.topology), null, 2)}\n`);
  });
}

/** `--json` as read; human output, line by line, with no character a terminal would act on (the formatters escape what messages brought; this holds for what they missed). */
function print(flags: TargetFlags, data: unknown, human: () => string): void {
  process.stdout.write(`${flags.json ? JSON.stringify(data, null, 2) : printableLines(human())}\n`);
}
