/**
 * A reference model of an SQS queue read by a Lambda event source mapping: what SQS hands out, and
 * what Lambda does with the function's answer. It is small and pure on purpose (no I/O, time passed
 * in, randomness injected), so that a property test can hold the runtime to it. Each rule names the
 * page it comes from.
 *
 * - SQS Developer Guide, "Amazon SQS visibility timeout": a received message stays in the queue,
 *   invisible until its visibility timeout ends; `ChangeMessageVisibility` sets a new timeout
 *   counted from the call. Each receive counts in `ApproximateReceiveCount` and hands out a new
 *   receipt handle; "you must provide the most recently received receipt handle", an older one
 *   deletes nothing.
 * - SQS Developer Guide, "Using dead-letter queues in Amazon SQS": "when the ReceiveCount for a
 *   message exceeds the maxReceiveCount for a queue, Amazon SQS moves the message to a dead-letter
 *   queue". The moved message carries no error: only its body and attributes.
 * - SQS Developer Guide, "Amazon SQS FIFO queues" / "Using the message group ID": messages of one
 *   group are received in the order they were sent; while messages of a group are in flight, no
 *   later message of that group is received. A standard queue keeps no order.
 * - Lambda Developer Guide, "Using Lambda with Amazon SQS" ("Implementing partial batch responses"):
 *   Lambda deletes every message of the batch that the response does not name; it deletes nothing
 *   when the function fails (an error, a timeout, a crash) or when the response names an
 *   identifier that is empty, null or not in the batch. For FIFO queues the function must "stop
 *   processing messages after the first failure and return all failed and unprocessed messages in
 *   batchItemFailures": the model does not enforce that, the property test checks it.
 */

/** A message as it sits in the queue. */
export interface ModelMessage {
  readonly messageId: string;
  readonly body: string;
  /** FIFO queues: the message group. */
  readonly groupId?: string;
  receiveCount: number;
  /** Model time (ms) from which the message can be received; later than now while in flight. */
  visibleAt: number;
  /** The handle of the latest receive; only it deletes the message. */
  receiptHandle?: string;
  firstReceivedAt?: number;
}

/** A message as one receive hands it out. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId?: string;
  readonly receiveCount: number;
  readonly receiptHandle: string;
  readonly firstReceivedAt: number;
}

/** What the function answered for a batch: its partial batch response, or a failure (error, timeout, crash). */
export type BatchAnswer = { readonly batchItemFailures: readonly { readonly itemIdentifier: string }[] } | 'failed';

export interface SqsQueueSettings {
  readonly fifo: boolean;
  readonly visibilityTimeoutMs: number;
  /** The redrive policy's `maxReceiveCount`. */
  readonly maxReceiveCount: number;
}

/** Where a message ended. */
export type MessageFate = 'deleted' | 'moved-by-sqs';

export class SqsQueueModel {
  private readonly messages: ModelMessage[] = [];
  private readonly fates = new Map<string, MessageFate>();
  private handles = 0;

  public constructor(private readonly settings: SqsQueueSettings) {}

  public send(messageId: string, body: string, groupId?: string): void {
    if (this.settings.fifo && groupId === undefined) throw new RangeError('a FIFO queue needs a message group id');
    this.messages.push({ messageId, body, groupId, receiveCount: 0, visibleAt: 0 });
  }

  /**
   * Up to `max` messages visible at `now`. A standard queue hands them out in the order `shuffle`
   * gives (it keeps none); a FIFO queue in send order, skipping every group with a message in
   * flight. A message received `maxReceiveCount` times already is moved to the DLQ instead.
   */
  public receive(now: number, max: number, shuffle: <T>(items: T[]) => T[] = (items) => items): ReceivedMessage[] {
    const received: ReceivedMessage[] = [];
    const blockedGroups = new Set<string>();
    const candidates = this.settings.fifo ? [...this.messages] : shuffle([...this.messages]);
    for (const message of candidates) {
      if (received.length >= max) break;
      if (this.settings.fifo && blockedGroups.has(message.groupId ?? '')) continue;
      if (message.visibleAt > now) {
        if (this.settings.fifo) blockedGroups.add(message.groupId ?? '');
        continue;
      }
      if (message.receiveCount >= this.settings.maxReceiveCount) this.remove(message, 'moved-by-sqs');
      else received.push(this.handOut(message, now));
    }
    return received;
  }

  /**
   * What Lambda does with the answer for a batch: with a valid partial batch response, deletes
   * every message it does not name (with the batch's receipt handles); with a failure or an
   * invalid response, nothing. Returns whether the response was valid.
   */
  public settle(batch: readonly ReceivedMessage[], answer: BatchAnswer): boolean {
    if (answer === 'failed' || !isValidResponse(batch, answer)) return false;
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const received of batch) if (!failed.has(received.messageId)) this.delete(received.receiptHandle);
    return true;
  }

  /** `ChangeMessageVisibility`: false for a handle that is not the message's latest. */
  public changeVisibility(receiptHandle: string, timeoutSeconds: number, now: number): boolean {
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message === undefined) return false;
    message.visibleAt = now + timeoutSeconds * 1000;
    return true;
  }

  /** Makes the messages visible at once, as if their visibility timeout ended while the function still held them. */
  public expireVisibility(messageIds: readonly string[], now: number): void {
    for (const message of this.messages) if (messageIds.includes(message.messageId)) message.visibleAt = now;
  }

  /** When the next in-flight message becomes visible, or undefined when none is in flight. */
  public nextVisibleAt(now: number): number | undefined {
    const later = this.messages.map((message) => message.visibleAt).filter((visibleAt) => visibleAt > now);
    return later.length === 0 ? undefined : Math.min(...later);
  }

  /** True once every message is deleted or moved. */
  public get drained(): boolean {
    return this.messages.length === 0;
  }

  public fateOf(messageId: string): MessageFate | undefined {
    return this.fates.get(messageId);
  }

  /** The messages SQS's redrive policy moved to the DLQ, in the order it moved them. */
  public get movedBySqs(): string[] {
    return [...this.fates].filter(([, fate]) => fate === 'moved-by-sqs').map(([messageId]) => messageId);
  }

  private handOut(message: ModelMessage, now: number): ReceivedMessage {
    message.receiveCount += 1;
    message.visibleAt = now + this.settings.visibilityTimeoutMs;
    message.receiptHandle = `${message.messageId}#${(this.handles += 1)}`;
    message.firstReceivedAt ??= now;
    const { messageId, body, groupId, receiveCount, receiptHandle, firstReceivedAt } = message;
    return { messageId, body, groupId, receiveCount, receiptHandle, firstReceivedAt };
  }

  private delete(receiptHandle: string): void {
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message !== undefined) this.remove(message, 'deleted');
  }

  private remove(message: ModelMessage, fate: MessageFate): void {
    this.messages.splice(this.messages.indexOf(message), 1);
    this.fates.set(message.messageId, fate);
  }
}

/** Lambda fails the whole batch for an identifier that is empty, null or not one of the batch's message ids. */
function isValidResponse(batch: readonly ReceivedMessage[], answer: Exclude<BatchAnswer, 'failed'>): boolean {
  if (!Array.isArray(answer.batchItemFailures)) return false;
  const ids = new Set(batch.map((message) => message.messageId));
  return answer.batchItemFailures.every((failure) => typeof failure?.itemIdentifier === 'string' && ids.has(failure.itemIdentifier));
}
