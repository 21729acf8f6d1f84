/**
 * The redrive's side of the dedup window. The constructs size a consumer's dedup TTL to outlive one
 * redrive cycle (lib/validation.ts, `minimumDedupTtl`): the event's first copy, its DLQ retention,
 * a redrive allowance and the redriven copy's own source retention. A copy redriven, failed again
 * and redriven again has no such bound, so each republish is checked here instead:
 *
 *   latest time the copy can be processed = now + the source's retention (the copy is new to it)
 *   earliest time an applied copy's dedup record can expire = earliest copy time (copy-time.ts)
 *     + the shortest dedup TTL among the source's consumers (every one of them gets the copy)
 *
 * When the first is later, the copy could be processed after that record expired and be applied
 * twice: the redrive holds it back unless the operator says otherwise. A source that no consumer of
 * the stack declares a dedup TTL for cannot be checked; the run reports it.
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { SQS_LIMITS } from '../../aws/limits';
import { formatDuration, shortTime } from '../../cli/table';
import type { CopyTime } from './copy-time';
import { needing } from './permissions';
import { stackQueueUrl } from './redrive-targets';
import { isTableStreamArn, retentionHoursOf } from './stream-range';
import type { ConsumerWindow, DlqContext } from './types';

const HOUR_MS = 3_600_000;
/** A table's stream keeps records 24 hours; this cannot be configured. */
const TABLE_STREAM_RETENTION_MS = 24 * HOUR_MS;

/** What a copy's source allows: how long it keeps the copy, and (a queue) how large a message may be. */
export interface SourceLimits {
  readonly retentionMs: number;
  readonly maxMessageBytes?: number;
}

/** How a redriven copy reaches its consumers. */
export interface CopyDelivery {
  /** How long after now it may still be processed; a copy handed to its consumer at once: 0. @default - the source's retention (a new copy in it) */
  readonly processedWithinMs?: number;
  /** The one consumer it goes to. @default - every consumer of the source */
  readonly consumer?: string;
}

/** The outcome of one check. */
export interface WindowCheck {
  /** Epoch ms: the earliest copy of the event, which a copy republished to a queue carries on. */
  readonly firstSentAt: number;
  readonly limits: SourceLimits;
  /** Why the copy could outlive the dedup record; absent when it cannot, or when unchecked. */
  readonly problem?: string;
}

/** Checks the republishes of one redrive run; asks each source queue for its limits once. */
export class DedupWindows {
  private readonly limits = new Map<string, Promise<SourceLimits>>();
  private readonly uncheckedSources = new Set<string>();

  public constructor(private readonly context: DlqContext & { readonly now: () => Date }) {}

  /** Whether a copy of an event whose earliest copy time is `copy` may be republished to `sourceArn` now. */
  public async check(sourceArn: string, copy: CopyTime, delivery: CopyDelivery = {}): Promise<WindowCheck> {
    const limits = await this.limitsOf(sourceArn);
    const firstSentAt = copy.at - (copy.countBack ? limits.retentionMs : 0);
    const windows = this.context.topology.consumerWindows.filter((window) => delivery.consumer === undefined || window.consumer === delivery.consumer);
    const window = shortestWindow(windows, sourceArn);
    const processedWithinMs = delivery.processedWithinMs;
    if (window === undefined) {
      this.uncheckedSources.add(sourceArn);
      return { firstSentAt, limits };
    }
    return { firstSentAt, limits, problem: problemOf(firstSentAt, copy, window, { retentionMs: limits.retentionMs, processedWithinMs: processedWithinMs ?? limits.retentionMs }, this.context.now().getTime()) };
  }

  /** The sources redriven to that no consumer of the stack declares a dedup TTL for. */
  public unchecked(): string[] {
    return [...this.uncheckedSources];
  }

  private limitsOf(sourceArn: string): Promise<SourceLimits> {
    let limits = this.limits.get(sourceArn);
    if (limits === undefined) {
      limits = this.readLimits(sourceArn);
      this.limits.set(sourceArn, limits);
    }
    return limits;
  }

  private async readLimits(sourceArn: string): Promise<SourceLimits> {
    if (isTableStreamArn(sourceArn)) return { retentionMs: TABLE_STREAM_RETENTION_MS };
    if (sourceArn.includes(':kinesis:')) return { retentionMs: retentionHoursOf(this.context.topology, sourceArn) * HOUR_MS };
    const { sqs } = this.context.clients;
    const QueueUrl = stackQueueUrl(this.context.topology, sourceArn);
    const { Attributes = {} } = await needing({ action: 'sqs:GetQueueAttributes', resource: sourceArn }, () => sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['MessageRetentionPeriod', 'MaximumMessageSize'] })));
    const retentionSeconds = Number(Attributes.MessageRetentionPeriod);
    // SQS's maximum when the queue does not say: the check then errs towards holding a copy back.
    return { retentionMs: (retentionSeconds > 0 ? retentionSeconds : SQS_LIMITS.maxRetentionSeconds) * 1000, maxMessageBytes: Number(Attributes.MaximumMessageSize) || SQS_LIMITS.maxMessageBytes };
  }
}

function shortestWindow(windows: readonly ConsumerWindow[], sourceArn: string): ConsumerWindow | undefined {
  return windows.filter((window) => window.sourceArn === sourceArn).reduce<ConsumerWindow | undefined>((shortest, window) => (shortest && shortest.dedupTtlSeconds <= window.dedupTtlSeconds ? shortest : window), undefined);
}

function problemOf(firstSentAt: number, copy: CopyTime, window: ConsumerWindow, times: { readonly retentionMs: number; readonly processedWithinMs: number }, now: number): string | undefined {
  if (!Number.isFinite(firstSentAt)) return 'when the event was first sent is not known, so the copy may outlive its dedup records';
  const expiry = firstSentAt + window.dedupTtlSeconds * 1000;
  const latest = now + times.processedWithinMs;
  if (latest <= expiry) return undefined;
  const since = copy.countBack ? `${iso(copy.at)}, when ${copy.basis}, less the source's ${formatDuration(times.retentionMs / 1000)} retention` : `${iso(firstSentAt)}, when ${copy.basis}`;
  const when = times.processedWithinMs === 0 ? `a redriven copy would be processed now, ${iso(latest)},` : `a redriven copy could be processed until ${iso(latest)} (the source keeps it ${formatDuration(times.processedWithinMs / 1000)}),`;
  return (
    `${when} ` +
    `after ${window.consumer}'s dedup record of an earlier copy may have expired at ${iso(expiry)} ` +
    `(${formatDuration(window.dedupTtlSeconds)} after ${since}): it could be applied twice`
  );
}

function iso(epochMs: number): string {
  return shortTime(new Date(epochMs).toISOString());
}
