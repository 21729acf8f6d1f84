/**
 * Draining the local stack: every mapping quiet and every source queue empty, waited for as long as
 * work progresses (see emulator/event-sources/drain.ts for the rule).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DRAIN_DEFAULTS, quiescentPart, untilDrained, type DrainPart } from '../event-sources/drain';
import { depthOf } from '../../aws/sqs/peek';
import type { FunctionSpec } from './functions';
import type { MappingSpec } from './mappings';
import type { LocalQueue } from './provision';

/**
 * How long the stack's drain waits with nothing moving before it gives up: a minute. Long enough
 * for a loaded machine between two batches; short enough that a stuck run says so in a minute, not
 * after a budget sized for the largest run.
 */
export const DRAIN_NO_PROGRESS_MS = DRAIN_DEFAULTS.stallMs;

/** What a stack's drain is given. */
export interface StackDrainOptions {
  /** How long every mapping must have been idle, with nothing seen. */
  readonly quietMs: number;
  /** Give up after this long with nothing moving. @default - {@link drainStallMs} */
  readonly stallMs?: number;
  /** Give up after this long in all (a safety net). @default DRAIN_DEFAULTS.maxMs */
  readonly maxMs?: number;
  /** Stops the drain at once with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What the stack's drain watches. */
export interface DrainTargets {
  readonly mappings: readonly MappingSpec[];
  readonly queues: ReadonlyMap<string, LocalQueue>;
  readonly functions: readonly FunctionSpec[];
  readonly sqs: SQSClient;
}

/**
 * The no-progress limit for a stack: {@link DRAIN_NO_PROGRESS_MS}, but never shorter than the
 * longest the stack can legitimately go without any visible change: a batch held past its
 * visibility timeout (nothing moves until the messages come back), then a run to its function
 * timeout, then the quiet period. At the default time scale that is seconds; at `--time-scale 1`
 * it is over three minutes.
 */
export function drainStallMs(targets: Pick<DrainTargets, 'queues' | 'functions'>, quietMs: number): number {
  const visibilityMs = Math.max(0, ...[...targets.queues.values()].map((queue) => queue.localVisibilityTimeoutSeconds * 1000));
  const timeoutMs = Math.max(0, ...targets.functions.map((fn) => fn.timeoutSeconds * 1000));
  return Math.max(DRAIN_NO_PROGRESS_MS, visibilityMs + timeoutMs + quietMs);
}

/** Resolves once every mapping is quiet and every source queue empty; rejects naming what did not drain. */
export async function drainStack(targets: DrainTargets, options: StackDrainOptions): Promise<void> {
  const parts = [...targets.mappings.map((spec) => mappingPart(spec, options.quietMs)), ...sourceQueueParts(targets)];
  const stallMs = options.stallMs ?? drainStallMs(targets, options.quietMs);
  await untilDrained(parts, { stallMs, maxMs: options.maxMs, signal: options.signal });
}

function mappingPart(spec: MappingSpec, quietMs: number): DrainPart {
  return quiescentPart(`mapping ${spec.logicalId} (${spec.source} -> ${spec.functionLogicalId})`, spec.mapping, { quietMs, stats: () => spec.mapping.stats });
}

function sourceQueueParts(targets: DrainTargets): DrainPart[] {
  const byUrl = new Map([...targets.queues.values()].map((queue) => [queue.url, queue]));
  const urls = [...new Set(targets.mappings.flatMap((spec) => (spec.sourceQueueUrl ? [spec.sourceQueueUrl] : [])))];
  return urls.map((url) => queuePart(`queue ${byUrl.get(url)?.name ?? url}`, targets.sqs, url));
}

/** A source queue: drained when it holds nothing, visible or in flight; its depth is its progress. */
function queuePart(name: string, sqs: SQSClient, url: string): DrainPart {
  return {
    name,
    look: async () => {
      try {
        const { visible, inFlight } = await depthOf(sqs, url);
        return { drained: visible + inFlight === 0, progress: `${visible}/${inFlight}`, detail: `${visible} messages visible, ${inFlight} in flight` };
      } catch (error) {
        // One failed look is not a verdict: the next one asks again, and a lasting failure shows up as a stall.
        return { drained: false, progress: 'unreadable', detail: `depth unreadable: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}
