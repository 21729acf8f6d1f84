/**
 * The rebuild phase, after the replay: each rebuilt generation of the stack (a consumer with a
 * `generation` above 1, its mapping off) is filled from its stream with `eo replay --generation`'s
 * own code, and `eo compare`'s code holds what it wrote against the live generation's tables.
 * They must be the same: the live state is what the stream's events, applied once each, make.
 */
import { diffTables, pairGenerations, planReplay, runReplay, streamKindOf, type ReplayTotals, type TableDiff } from '../../operations/replay';
import type { ConsumerFunction } from '../../operations/dlq';
import { dlqContextOfLocalStack } from '../stack/dlq-context';
import type { LocalStack } from '../stack/runtime';
import { STREAM_CLOCK_SLACK_MS, stoppedShards } from './replay-phase';

/** What the rebuild of one generation came to. */
export interface RebuildReport {
  /** The consumer's name, without its generation. */
  readonly consumer: string;
  readonly generation: number;
  readonly liveGeneration: number;
  /** The replay that filled the generation. */
  readonly totals: ReplayTotals;
  readonly complete: boolean;
  /**
   * Batches the replay sent again, after a report or a failed invocation (a crash under the demo's
   * faults): the records such an invocation wrote before it died come back not newer, so they
   * count as skipped, not applied.
   */
  readonly retries: number;
  /** Why the replay stopped short, shard by shard, when it did. */
  readonly stopped?: readonly string[];
  /** One per table the two generations write apart. */
  readonly tables: readonly TableDiff[];
}

/** Fills every rebuilt stream generation of the stack from its stream over the run, then compares it with the live one. */
export async function rebuildPhase(stack: LocalStack, startedAt: number): Promise<RebuildReport[]> {
  const context = dlqContextOfLocalStack(stack);
  const rebuilds = context.topology.consumerFunctions.filter(isRebuild);
  const reports: RebuildReport[] = [];
  for (const rebuild of rebuilds) {
    const name = rebuild.name ?? rebuild.consumer;
    const generation = rebuild.generation ?? 1;
    const nowMs = Date.now();
    const plan = planReplay(context.topology, name, { fromMs: startedAt - STREAM_CLOCK_SLACK_MS, toMs: nowMs }, { nowMs, generation });
    const summary = await runReplay(context, plan);
    const pair = pairGenerations(context.topology, name, generation);
    const tables: TableDiff[] = [];
    for (const tablePair of pair.tables) tables.push(await diffTables(context.clients.dynamodb, tablePair));
    const stopped = stoppedShards(summary);
    const retries = summary.shards.reduce((sum, shard) => sum + (shard.retries ?? 0), 0);
    reports.push({ consumer: name, generation, liveGeneration: pair.live.generation ?? 1, totals: summary.totals, complete: summary.complete, retries, ...(stopped.length > 0 && { stopped }), tables });
  }
  return reports;
}

/** A generation above 1 on a stream, its mapping off: filled by replay, not by its mapping. */
function isRebuild(consumer: ConsumerFunction): boolean {
  return (consumer.generation ?? 1) > 1 && consumer.mappingEnabled === false && streamKindOf(consumer.sourceArn) !== undefined;
}
