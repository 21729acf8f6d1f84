import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { fullJitterDelay, type RandomSource } from '../core/backoff';
import type { SourceRecord } from '../decoding/records';
import { ConfigurationError } from '../core/errors';
import { LAMBDA_LIMITS, SQS_LIMITS } from '../../../aws/limits';

/** Defaults shared by the code and its documentation. */
export const DEFAULT_VISIBILITY_BACKOFF = {
  baseSeconds: 2,
  capSeconds: 300,
} as const;

/**
 * The longest visibility timeout the backoff sets: 12 hours less the longest a record can have
 * been held since SQS handed it out, Lambda's batching window (300 s) and the function's run
 * (900 s). SQS caps a message's visibility at 12 hours from the ReceiveMessage that returned it,
 * extensions included, and refuses a change past that: 43200 s, asked a moment after the
 * receive, is refused, and the message comes back after the queue's own timeout instead.
 */
export const MAX_BACKOFF_VISIBILITY_SECONDS = SQS_LIMITS.maxVisibilityTimeoutSeconds - LAMBDA_LIMITS.maxBatchingWindowSeconds - LAMBDA_LIMITS.maxTimeoutSeconds;

/** The jittered backoff of {@link VisibilityBackoff}: how far each retry pushes a failed message's visibility out. */
export interface VisibilityBackoffOptions {
  /** The first retry's ceiling; more than 0. @default 2 */
  readonly baseSeconds?: number;
  /** The ceiling of every retry: at least `baseSeconds`, at most {@link MAX_BACKOFF_VISIBILITY_SECONDS} (42,000). @default 300 */
  readonly capSeconds?: number;
  /** @default Math.random */
  readonly random?: RandomSource;
  /** The source queue; derived from the record's ARN when absent. */
  readonly queueUrl?: string;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * Pushes the next delivery of failed SQS messages out by full-jitter backoff on their receive
 * count, so that redeliveries of a failing batch spread out instead of hammering a struggling
 * dependency in lockstep.
 */
export class VisibilityBackoff {
  /** @throws ConfigurationError when `baseSeconds` or `capSeconds` is out of its range */
  public constructor(
    private readonly sqs: SQSClient,
    private readonly options: VisibilityBackoffOptions = {},
  ) {
    checkRange(options);
  }

  /** The jittered visibility timeout, in whole seconds, for a message received `receiveCount` times. */
  public timeoutFor(receiveCount: number): number {
    const { baseSeconds = DEFAULT_VISIBILITY_BACKOFF.baseSeconds, capSeconds = DEFAULT_VISIBILITY_BACKOFF.capSeconds, random } = this.options;
    const delayMs = fullJitterDelay(Math.max(0, receiveCount - 1), { baseMs: baseSeconds * 1000, capMs: capSeconds * 1000, random });
    return Math.min(MAX_BACKOFF_VISIBILITY_SECONDS, Math.ceil(delayMs / 1000));
  }

  /**
   * Changes the visibility of the records; returns the timeouts set, by message id. Failures are
   * reported, not thrown. A record named in `notBefore` stays invisible at least until then (an
   * idempotency lock that must expire first), whatever the backoff draws.
   */
  public async apply(records: readonly SourceRecord[], notBefore: ReadonlyMap<string, Date> = new Map()): Promise<{ timeouts: Map<string, number>; failed: string[] }> {
    const timeouts = new Map<string, number>();
    const failed: string[] = [];
    const withHandles = records.filter((record) => record.receiptHandle);
    for (let start = 0; start < withHandles.length; start += SQS_LIMITS.maxBatchEntries) {
      const group = withHandles.slice(start, start + SQS_LIMITS.maxBatchEntries);
      group.forEach((record) => timeouts.set(record.itemIdentifier, this.timeoutOf(record, notBefore.get(record.itemIdentifier))));
      failed.push(...(await this.changeGroup(group, timeouts)));
    }
    return { timeouts, failed };
  }

  private timeoutOf(record: SourceRecord, notBefore: Date | undefined): number {
    const backoff = this.timeoutFor(record.receiveCount);
    if (notBefore === undefined) return backoff;
    const untilThen = Math.ceil((notBefore.getTime() - (this.options.now ?? Date.now)()) / 1000) + 1;
    return Math.min(MAX_BACKOFF_VISIBILITY_SECONDS, Math.max(backoff, untilThen));
  }

  private async changeGroup(group: readonly SourceRecord[], timeouts: ReadonlyMap<string, number>): Promise<string[]> {
    const entries = group.map((record, position) => ({
      Id: String(position),
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: timeouts.get(record.itemIdentifier),
    }));
    try {
      const queueUrl = this.options.queueUrl ?? queueUrlFromArn(group[0]?.sourceArn ?? '');
      const result = await this.sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      return (result.Failed ?? []).map((entry) => group[Number(entry.Id)]?.itemIdentifier ?? '');
    } catch {
      return group.map((record) => record.itemIdentifier);
    }
  }
}

function checkRange({ baseSeconds = DEFAULT_VISIBILITY_BACKOFF.baseSeconds, capSeconds = DEFAULT_VISIBILITY_BACKOFF.capSeconds }: VisibilityBackoffOptions): void {
  if (!Number.isFinite(baseSeconds) || baseSeconds <= 0) throw new ConfigurationError(`VisibilityBackoff baseSeconds must be a number of seconds above 0 (given ${baseSeconds})`);
  if (!Number.isFinite(capSeconds) || capSeconds < baseSeconds || capSeconds > MAX_BACKOFF_VISIBILITY_SECONDS) {
    throw new ConfigurationError(
      `VisibilityBackoff capSeconds must be from baseSeconds (${baseSeconds}) to ${MAX_BACKOFF_VISIBILITY_SECONDS} (given ${capSeconds}): ` +
        `SQS refuses a visibility that ends more than ${SQS_LIMITS.maxVisibilityTimeoutSeconds} s after the receive, and a record may have been held ${SQS_LIMITS.maxVisibilityTimeoutSeconds - MAX_BACKOFF_VISIBILITY_SECONDS} s by then`,
    );
  }
}

/** `arn:aws:sqs:<region>:<account>:<name>` -> `https://sqs.<region>.amazonaws.com/<account>/<name>`. */
export function queueUrlFromArn(arn: string): string {
  const [prefix, partition, service, region, account, name] = arn.split(':');
  if (prefix !== 'arn' || service !== 'sqs' || !region || !account || !name) throw new TypeError(`not an SQS queue ARN: "${arn}"`);
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}
