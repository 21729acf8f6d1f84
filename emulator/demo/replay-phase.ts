/**
 * The replay phase, after the redrive: the whole run's records go through each stream consumer
 * again with `eo replay`'s own code (operations/replay), and the state must not change: every
 * effect, every notification, every DLQ as the redrive left them. A record the function reports
 * (an injected throttle that outlasted its retries, a batch out of its compressed time) is sent
 * again from there, as the mapping would (operations/replay/replay.ts).
 */
import { planReplay, runReplay, streamKindOf, type ReplaySummary, type ReplayTotals } from '../../operations/replay';
import { dlqContextOfLocalStack } from '../stack/dlq-context';
import type { LocalStack } from '../stack/runtime';
import { settledState } from './settle';
import { dlqDepth, type FinalState } from './state';

/** DynamoDB Local rounds a stream record's time down to the minute: the window starts that much earlier. */
export const STREAM_CLOCK_SLACK_MS = 120_000;

/** What the replay of one consumer came to. */
export interface ConsumerReplay {
  readonly consumer: string;
  readonly totals: ReplayTotals;
  readonly complete: boolean;
  /** Why the last run stopped short, shard by shard, when it did. */
  readonly stopped?: readonly string[];
}

/** The phase's part of the report. */
export interface ReplayReport {
  readonly consumers: readonly ConsumerReplay[];
  /** What differs between the state before and after the replay; empty when nothing changed. */
  readonly changes: readonly string[];
}

/** Replays every live stream consumer over the run and compares the state before and after (a rebuilt generation, whose mapping is off, is the rebuild phase's). */
export async function replayPhase(stack: LocalStack, before: FinalState, startedAt: number): Promise<ReplayReport> {
  const context = dlqContextOfLocalStack(stack);
  const streamConsumers = context.topology.consumerFunctions.filter((consumer) => streamKindOf(consumer.sourceArn) !== undefined && consumer.mappingEnabled !== false);
  const consumers: ConsumerReplay[] = [];
  for (const consumer of streamConsumers) {
    const nowMs = Date.now();
    const plan = planReplay(context.topology, consumer.consumer, { fromMs: startedAt - STREAM_CLOCK_SLACK_MS, toMs: nowMs }, { nowMs });
    const summary = await runReplay(context, plan);
    const stopped = stoppedShards(summary);
    consumers.push({ consumer: consumer.consumer, totals: summary.totals, complete: summary.complete, ...(stopped.length > 0 && { stopped }) });
  }
  const after = await settledState(stack);
  return { consumers, changes: stateChanges(before, after) };
}

/** Why a replay stopped short, one sentence per shard that stopped. */
export function stoppedShards(summary: ReplaySummary): string[] {
  return summary.shards.flatMap((shard) => (shard.stoppedAt ? [`${shard.shardId} at ${shard.stoppedAt.sequenceNumber}: ${shard.stoppedAt.reason}`] : []));
}

/** The parts of the state a replay must leave as they were, compared; each difference as a sentence. */
export function stateChanges(before: FinalState, after: FinalState): string[] {
  const changes: string[] = [];
  const compare = (what: string, a: unknown, b: unknown) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) changes.push(`${what} changed`);
  };
  compare('the page-view counters', sorted(before.counters), sorted(after.counters));
  compare('the order projection', sorted(before.orders), sorted(after.orders));
  compare('the account ledger', sorted(before.ledger), sorted(after.ledger));
  compare('the invoices', sorted(before.invoices), sorted(after.invoices));
  compare('the payments', sorted(before.payments), sorted(after.payments));
  if (after.notifications.length !== before.notifications.length) changes.push(`shipment notifications: ${before.notifications.length} before, ${after.notifications.length} after`);
  for (const dlq of after.dlqs) {
    const held = before.dlqs.find((candidate) => candidate.queueName === dlq.queueName);
    const [was, is] = [held ? dlqDepth(held) : 0, dlqDepth(dlq)];
    if (was !== is) changes.push(`${dlq.queueName}: ${was} message(s) before, ${is} after`);
  }
  return changes;
}

function sorted<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
