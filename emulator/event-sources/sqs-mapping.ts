/**
 * An SQS event source mapping, emulated: pollers long-poll the queue, gather a batch, invoke the
 * function, and delete what succeeded. Retries and the move to the DLQ are the queue's own
 * (visibility timeout and redrive policy, as fauxqs implements them), never the mapping's.
 *
 * What the emulation does not cover:
 * - Scaling: a fixed number of pollers (`concurrency`), each with at most one batch in flight.
 *   Lambda starts at five concurrent batches and adds up to 300 a minute while messages wait, up
 *   to its per-mapping ceiling (1,000 batches in AWS's current guide) or the mapping's
 *   `MaximumConcurrency`, and backs off when the function errors or is throttled. Here the stack
 *   layer (emulator/stack/mappings.ts) only keeps the poller count at or under the template's
 *   `MaximumConcurrency` (in provisioned mode, `ProvisionedPollerConfig.MaximumPollers` x 10), so
 *   local mode never runs more invocations at once than AWS would; the ramp, the back-off,
 *   provisioned mode's minimum pool, reserved concurrency and throttling of the function are not
 *   modelled.
 * - The batching window is approximated: it starts when a poller receives its first messages,
 *   and the 6 MB payload limit is not enforced.
 * - Filter criteria are ignored: every message is delivered.
 * - FIFO queues get no special treatment beyond what fauxqs does (it locks a message group
 *   while one of its messages is in flight).
 * - Timing is compressed when the caller passes a shorter visibility timeout or batching window
 *   than the deployed stack has; relative timings (window vs. visibility) are what matter. With
 *   `keepHeldInvisible`, the mapping receives with a hold that covers the window and the
 *   invocation, as the deployed stack's timeout rules guarantee on AWS, and gives what it does not
 *   delete the scaled timeout (see held-batch.ts).
 * - `stop()` abandons long polls in progress: fauxqs may still hand those polls messages, which
 *   then stay invisible until their visibility timeout (or hold) passes.
 * - The `duplicate` fault delivers the batch twice and acts on the second response only (the
 *   first is treated as lost); two real pollers would each act on their own.
 */
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { NO_DELIVERY_FAULTS, type DeliveryFaults, type InvokeResult, type Invoker } from '../types';
import { Activity } from './activity';
import { checkRange } from './config-checks';
import { MappingConfigError } from './errors';
import { invocationOutcome, invokeSafely, type InvocationOutcome } from './invocation-outcome';
import { sqsLambdaRecord } from '../../aws/lambda/event-records';
import { engineBackoffMs, pause, warnOnConsole, type MappingLog } from './polling';
import { deleteMessages, fillBatch, receiveMessages, SQS_LONG_POLL_SECONDS, type ReceiveTarget } from './sqs-receive';
import { letGo } from './held-batch';
import { SQS_LIMITS } from '../../aws/limits';

/** Defaults of {@link SqsMappingConfig}. */
export const SQS_MAPPING_DEFAULTS = {
  /** Pollers, each with at most one batch in flight. */
  concurrency: 2,
  /** How far past the visibility timeout the `outliveVisibility` fault holds a batch. */
  visibilityMarginMs: 500,
  /** With `keepHeldInvisible`, how long a received message stays invisible while its batch is held: 6 x a 5 s function timeout. */
  holdSeconds: 30,
} as const;

/** Settings of an {@link SqsMapping}: the template's mapping and queue, plus local wiring. */
export interface SqsMappingConfig {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  /** Messages per invocation: 1..10000, at most 10 when the batching window is 0. */
  readonly batchSize: number;
  /** How long to gather a batch: 0..300 s. */
  readonly maximumBatchingWindowSeconds: number;
  /** Read the function's response as a partial batch response. */
  readonly reportBatchItemFailures: boolean;
  /** The queue's visibility timeout: what a batch let go without a delete waits, and what the `outliveVisibility` fault outlives. */
  readonly visibilityTimeoutSeconds: number;
  /**
   * Receive with `holdSeconds` as the visibility timeout, so that a batch stays invisible while it
   * is gathered and run, and give the messages that are not deleted `visibilityTimeoutSeconds`
   * afterwards: for a queue whose visibility timeout was scaled down below the real batching window
   * and run time (see held-batch.ts). The `outliveVisibility` fault still lets a batch reappear.
   * @default false
   */
  readonly keepHeldInvisible?: boolean;
  /**
   * With `keepHeldInvisible`: the visibility timeout of a received message while its batch is held,
   * from `visibilityTimeoutSeconds` to 43200.
   * @default 30 (`SQS_MAPPING_DEFAULTS.holdSeconds`)
   */
  readonly holdSeconds?: number;
  /** Pollers. @default 2 (`SQS_MAPPING_DEFAULTS.concurrency`) */
  readonly concurrency?: number;
  readonly invoke: Invoker;
  /** @default - no faults */
  readonly faults?: DeliveryFaults;
  readonly sqs: SQSClient;
  /** @default 500 (`SQS_MAPPING_DEFAULTS.visibilityMarginMs`) */
  readonly visibilityMarginMs?: number;
  /** Where transient engine errors are reported. @default - a warning on stderr */
  readonly log?: MappingLog;
}

/** What an {@link SqsMapping} has done so far. */
export interface SqsMappingStats {
  /** Batches gathered (a duplicated batch counts once). */
  readonly batches: number;
  /** Records handed to the function, duplicates included. */
  readonly deliveries: number;
  /** Records handed to the function a second time by the `duplicate` fault. */
  readonly duplicateDeliveries: number;
  /** Batches whose response the `crashAfterInvoke` fault dropped. */
  readonly crashes: number;
  /** Batches the `outliveVisibility` fault held past their visibility timeout. */
  readonly visibilityOutlived: number;
  /** Messages SQS reported deleted (fauxqs reports stale receipt handles as deleted too). */
  readonly deleted: number;
  /** Invocations that errored, timed out or crashed. */
  readonly invocationErrors: number;
  /** Partial batch responses that failed their whole batch (unknown identifier, bad shape). */
  readonly invalidResponses: number;
  /**
   * Records whose invocation failed (an error, a crash, an unusable response) or that a partial
   * batch response named: what Lambda counts as `FailedInvokeEventCount`.
   */
  readonly failedInvokeEvents: number;
}

type Counts = { -readonly [K in keyof SqsMappingStats]: number };

/**
 * Polls an SQS queue and invokes a function with batches of its messages, as Lambda does.
 *
 * @example
 * const mapping = new SqsMapping({ queueUrl, queueArn, region, batchSize: 10, maximumBatchingWindowSeconds: 0,
 *   reportBatchItemFailures: true, visibilityTimeoutSeconds: 180, invoke, sqs });
 * mapping.start();
 * await untilQuiet([mapping], { quietMs: 2_000 });
 * await mapping.stop();
 */
export class SqsMapping {
  private readonly config: SqsMappingConfig;
  private readonly faults: DeliveryFaults;
  private readonly log: MappingLog;
  private readonly activity = new Activity();
  private readonly counts: Counts = zeroCounts();
  private controller = new AbortController();
  private pollers: Promise<void>[] = [];

  constructor(config: SqsMappingConfig) {
    validateSqsMappingConfig(config);
    this.config = config;
    this.faults = config.faults ?? NO_DELIVERY_FAULTS;
    this.log = config.log ?? warnOnConsole;
  }

  /** Starts the pollers; does nothing if they are running. */
  start(): void {
    if (this.pollers.length > 0) return;
    this.controller = new AbortController();
    const pollers = this.config.concurrency ?? SQS_MAPPING_DEFAULTS.concurrency;
    // poll() handles its own errors; the catch is for a bug, so that it never goes unhandled.
    this.pollers = Array.from({ length: pollers }, () => this.poll().catch((error: unknown) => this.log('an SQS poller stopped on an unexpected error', error)));
  }

  /** Stops polling and resolves once every batch in flight has been invoked and acknowledged. */
  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.all(this.pollers);
    this.pollers = [];
  }

  /** True when no poller holds a batch. */
  isIdle(): boolean {
    return this.activity.idle;
  }

  /** When messages were last received or a batch last finished (epoch ms). */
  get lastActivityAt(): number {
    return this.activity.lastActivityAt;
  }

  /** A snapshot of the counters. */
  get stats(): SqsMappingStats {
    return { ...this.counts };
  }

  private get target(): ReceiveTarget {
    const { sqs, queueUrl, keepHeldInvisible, holdSeconds = SQS_MAPPING_DEFAULTS.holdSeconds, visibilityTimeoutSeconds } = this.config;
    // Never shorter than the queue's own timeout: the hold is there to lengthen it.
    return { sqs, queueUrl, signal: this.controller.signal, log: this.log, visibilityTimeoutSeconds: keepHeldInvisible ? Math.max(holdSeconds, visibilityTimeoutSeconds) : undefined };
  }

  private async poll(): Promise<void> {
    const signal = this.controller.signal;
    for (let errors = 0; !signal.aborted; ) {
      try {
        await this.pollOnce(this.target);
        errors = 0;
      } catch (error) {
        if (signal.aborted) return;
        errors += 1;
        this.log(`polling ${this.config.queueUrl} failed; backing off`, error);
        await pause(engineBackoffMs(errors), signal);
      }
    }
  }

  private async pollOnce(target: ReceiveTarget): Promise<void> {
    const { batchSize, maximumBatchingWindowSeconds } = this.config;
    const first = await receiveMessages(target, batchSize, SQS_LONG_POLL_SECONDS);
    if (first.length === 0) return;
    await this.activity.run(async () => {
      const batch = await fillBatch(target, first, batchSize, maximumBatchingWindowSeconds * 1000);
      await this.deliver(batch);
    });
  }

  private async deliver(messages: readonly Message[]): Promise<void> {
    const { queueArn, region } = this.config;
    const records = messages.map((message) => sqsLambdaRecord(message, queueArn, region));
    const decision = this.faults.decide({ source: 'sqs', size: records.length });
    this.counts.batches += 1;
    if (decision.outliveVisibility && !(await this.outliveVisibility(records))) return;
    const result = await this.invokeBatch(records, decision.duplicate === true);
    if (decision.crashAfterInvoke) {
      this.counts.crashes += 1;
      this.counts.failedInvokeEvents += records.length;
      // The function ran: what it reported has the visibility it set; the rest comes back as from a crash.
      await this.letGo(unreported(records, this.outcomeOf(records, result)));
      return;
    }
    await this.acknowledge(records, result);
  }

  /** Holds the batch until its messages are visible again; false if stopped meanwhile (the batch is dropped). */
  private async outliveVisibility(records: readonly SQSRecord[]): Promise<boolean> {
    this.counts.visibilityOutlived += 1;
    await this.letGo(records);
    const margin = this.config.visibilityMarginMs ?? SQS_MAPPING_DEFAULTS.visibilityMarginMs;
    return pause(this.config.visibilityTimeoutSeconds * 1000 + margin, this.controller.signal);
  }

  /** Held messages not deleted come back after the (scaled) visibility timeout, not the hold. */
  private async letGo(records: readonly SQSRecord[]): Promise<void> {
    const { keepHeldInvisible, sqs, queueUrl, visibilityTimeoutSeconds } = this.config;
    if (keepHeldInvisible && records.length > 0) await letGo({ sqs, queueUrl, visibilityTimeoutSeconds, log: this.log }, records.map((record) => record.receiptHandle));
  }

  private outcomeOf(records: readonly SQSRecord[], result: InvokeResult): InvocationOutcome {
    return invocationOutcome(result, records.map((record) => record.messageId), this.config.reportBatchItemFailures);
  }

  private async invokeBatch(records: readonly SQSRecord[], duplicate: boolean): Promise<InvokeResult> {
    const first = await this.invokeOnce(records);
    if (!duplicate) return first;
    this.counts.duplicateDeliveries += records.length;
    return this.invokeOnce(records);
  }

  private async invokeOnce(records: readonly SQSRecord[]): Promise<InvokeResult> {
    this.counts.deliveries += records.length;
    // A copy per delivery: a function that mutates its event must not change the next delivery.
    const result = await invokeSafely(this.config.invoke, { Records: structuredClone(records) });
    if (!result.ok) this.counts.invocationErrors += 1;
    return result;
  }

  /** Deletes what succeeded; a failed or invalid response deletes nothing, as in AWS. */
  private async acknowledge(records: readonly SQSRecord[], result: InvokeResult): Promise<void> {
    const outcome = this.outcomeOf(records, result);
    if (outcome.kind === 'failed') {
      if (outcome.reason === 'invalid-response') this.counts.invalidResponses += 1;
      this.counts.failedInvokeEvents += records.length;
      await this.letGo(records);
      return;
    }
    if (outcome.kind === 'partial') this.counts.failedInvokeEvents += outcome.failed.size;
    const done = outcome.kind === 'partial' ? records.filter((record) => !outcome.failed.has(record.messageId)) : records;
    if (done.length === 0) return;
    const handles = done.map((record) => record.receiptHandle);
    // Await first: `counts.deleted += await ...` would read the count before the await and lose the other pollers' deletes.
    const deleted = await deleteMessages(this.config.sqs, this.config.queueUrl, handles);
    this.counts.deleted += deleted;
  }
}

/** The records a partial batch response did not name; all of them for any other outcome. */
function unreported(records: readonly SQSRecord[], outcome: InvocationOutcome): SQSRecord[] {
  return outcome.kind === 'partial' ? records.filter((record) => !outcome.failed.has(record.messageId)) : [...records];
}

function zeroCounts(): Counts {
  return { batches: 0, deliveries: 0, duplicateDeliveries: 0, crashes: 0, visibilityOutlived: 0, deleted: 0, invocationErrors: 0, invalidResponses: 0, failedInvokeEvents: 0 };
}

/** Throws a {@link MappingConfigError} for a setting that Lambda or SQS would refuse. */
export function validateSqsMappingConfig(config: SqsMappingConfig): void {
  checkRange('batchSize', config.batchSize, { min: 1, max: 10_000 });
  checkRange('maximumBatchingWindowSeconds', config.maximumBatchingWindowSeconds, { min: 0, max: 300 });
  if (config.batchSize > 10 && config.maximumBatchingWindowSeconds < 1) {
    throw new MappingConfigError('batchSize', config.batchSize, `batchSize must be 1..10 without a batching window (given ${config.batchSize})`);
  }
  checkRange('visibilityTimeoutSeconds', config.visibilityTimeoutSeconds, { min: 0, max: SQS_LIMITS.maxVisibilityTimeoutSeconds });
  if (config.holdSeconds !== undefined) checkRange('holdSeconds', config.holdSeconds, { min: config.visibilityTimeoutSeconds, max: SQS_LIMITS.maxVisibilityTimeoutSeconds });
  if (config.concurrency !== undefined) checkRange('concurrency', config.concurrency, { min: 1, max: 1_000 });
}
