/**
 * Keeps the messages of a batch that a poller holds invisible until its invocation returns.
 *
 * On AWS a batch's messages cannot reappear while Lambda gathers or runs it: the consumer
 * constructs refuse a visibility timeout below 6x the function timeout plus the batching window.
 * Local mode compresses time by scaling the queue's visibility timeout down (to a second, say)
 * while the batching window and the function's run time stay real, which would break that rule
 * whenever the machine is slow. The keeper restores it by extending the held messages' visibility
 * before it lapses. The `outliveVisibility` fault releases the keeper first, so that it still
 * breaks the rule on purpose.
 *
 * Not covered: an extension that lands after the function's own `ChangeMessageVisibility` (its
 * backoff for failed records) replaces that backoff with one visibility timeout; redelivery then
 * comes sooner, which changes timing, never effects.
 */
import { ChangeMessageVisibilityBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { pause, type MappingLog } from './polling';
import { SQS_MAX_PER_CALL } from './sqs-receive';

/** Extensions per visibility timeout: the margin for a slow engine or a busy event loop. */
const EXTENSIONS_PER_TIMEOUT = 3;

export interface VisibilityKeeperConfig {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  /** The queue's (local) visibility timeout: each extension sets it again from now. */
  readonly visibilityTimeoutSeconds: number;
  readonly log: MappingLog;
}

export class VisibilityKeeper {
  private readonly receiptHandles: string[] = [];
  private readonly stopped = new AbortController();
  private readonly loop: Promise<void>;

  /** Starts keeping `messages` invisible; {@link hold} adds more, {@link release} stops. */
  constructor(
    private readonly config: VisibilityKeeperConfig,
    messages: readonly Message[],
  ) {
    this.hold(messages);
    this.loop = this.extendUntilReleased();
  }

  /** Keeps these messages invisible too (those received while the batch fills). */
  hold(messages: readonly Message[]): void {
    for (const { ReceiptHandle } of messages) if (ReceiptHandle !== undefined) this.receiptHandles.push(ReceiptHandle);
  }

  /** Stops extending; resolves once no extension is in flight, so none lands after this. */
  async release(): Promise<void> {
    this.stopped.abort();
    await this.loop;
  }

  private async extendUntilReleased(): Promise<void> {
    const periodMs = (this.config.visibilityTimeoutSeconds * 1000) / EXTENSIONS_PER_TIMEOUT;
    while (await pause(periodMs, this.stopped.signal)) await this.extend();
  }

  private async extend(): Promise<void> {
    const { sqs, queueUrl, visibilityTimeoutSeconds, log } = this.config;
    for (let start = 0; start < this.receiptHandles.length; start += SQS_MAX_PER_CALL) {
      const handles = this.receiptHandles.slice(start, start + SQS_MAX_PER_CALL);
      const Entries = handles.map((ReceiptHandle, index) => ({ Id: String(index), ReceiptHandle, VisibilityTimeout: visibilityTimeoutSeconds }));
      try {
        const { Failed = [] } = await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries }));
        if (Failed.length > 0) log(`keeping ${Failed.length} held messages of ${queueUrl} invisible failed: ${Failed.map((entry) => entry.Code).join(', ')}`);
      } catch (error) {
        log(`keeping held messages of ${queueUrl} invisible failed`, error);
      }
    }
  }
}
