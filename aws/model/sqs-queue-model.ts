/**
 * A reference model of an SQS queue read by a Lambda event source mapping: what SQS hands out, and
 * what Lambda does with the function's answer. It is small and pure on purpose (no I/O, time passed
 * in, randomness injected), so that a property test can hold the runtime to it. Each rule names the
 * page it comes from.
 *
 * - SQS Developer Guide, "Amazon SQS visibility timeout": a received message stays in the queue,
 *   invisible until its visibility timeout ends; `ChangeMessageVisibility` sets a new timeout
 *   counted from the call. Each receive counts in `ApproximateReceiveCount` and hands out a new
 *   receipt handle; "you must provide the most recently received receipt handle": with an older
 *   one "the request succeeds, but the message might not be deleted" (SQS API Reference,
 *   `DeleteMessage`). Both outcomes are the model's: the caller says which (`staleHandlesDelete`).
 * - SQS Developer Guide, "Amazon SQS at-least-once delivery": SQS keeps copies of a message on
 *   several servers, and "on rare occasions, one of the servers that stores a copy of a message
 *   might be unavailable when you receive or delete a message"; that copy is then not deleted, and
 *   "you might get that message copy again". A standard queue only (FIFO queues deliver once). The
 *   model's copy (`keepCopy`) has the message's id and body, a visibility and receipt handles of
 *   its own, and a receive count that missed the receives it was not there for
 *   ("Approximate"ReceiveCount). It never hands out two copies of one message in one receive.
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
  /** Every handle this copy handed out, the latest last: a delete names its copy by one of them. */
  readonly handles: string[];
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

/** How Lambda's deletes of a batch fare. */
export interface SettleOptions {
  /**
   * Whether a receipt handle that is no longer the message's latest deletes it all the same (it
   * "might not": both happen on AWS). @default false
   */
  readonly staleHandlesDelete?: boolean;
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
    this.messages.push({ messageId, body, groupId, receiveCount: 0, visibleAt: 0, handles: [] });
  }

  /**
   * A copy of a message that a server kept while it was unavailable (at-least-once delivery): it is
   * visible at `now`, whatever the message's visibility, and its receive count missed the last
   * `missedReceives` receives (at least one: the receive it was not there for). Returns false when
   * the message is not in the queue. A standard queue only.
   */
  public keepCopy(messageId: string, now: number, missedReceives = 1): boolean {
    if (this.settings.fifo) throw new RangeError('a FIFO queue delivers each message once: it keeps no extra copy');
    if (!Number.isInteger(missedReceives) || missedReceives < 1) throw new RangeError(`missedReceives must be an integer of 1 or more, got ${missedReceives}`);
    const message = this.messages.find((candidate) => candidate.messageId === messageId);
    if (message === undefined) return false;
    const receiveCount = Math.max(0, message.receiveCount - missedReceives);
    this.messages.push({ messageId, body: message.body, receiveCount, visibleAt: now, handles: [], firstReceivedAt: message.firstReceivedAt });
    return true;
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
      if (received.some((other) => other.messageId === message.messageId)) continue;
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
  public settle(batch: readonly ReceivedMessage[], answer: BatchAnswer, options: SettleOptions = {}): boolean {
    if (answer === 'failed' || !isValidResponse(batch, answer)) return false;
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const received of batch) if (!failed.has(received.messageId)) this.delete(received, options.staleHandlesDelete === true);
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
    message.handles.push(message.receiptHandle);
    message.firstReceivedAt ??= now;
    const { messageId, body, groupId, receiveCount, receiptHandle, firstReceivedAt } = message;
    return { messageId, body, groupId, receiveCount, receiptHandle, firstReceivedAt };
  }

  /** Deletes the copy that handed out the receive's handle: its latest one deletes; an older one only when `staleDeletes` (AWS's "might not"). */
  private delete(received: ReceivedMessage, staleDeletes: boolean): void {
    const message = this.messages.find((candidate) => candidate.handles.includes(received.receiptHandle));
    if (message !== undefined && (message.receiptHandle === received.receiptHandle || staleDeletes)) this.remove(message, 'deleted');
  }

  private remove(message: ModelMessage, fate: MessageFate): void {
    this.messages.splice(this.messages.indexOf(message), 1);
    // A message whose copy SQS moved stays moved, whatever its other copies' ends.
    if (this.fates.get(message.messageId) !== 'moved-by-sqs') this.fates.set(message.messageId, fate);
  }
}

/** Lambda fails the whole batch for an identifier that is empty, null or not one of the batch's message ids. */
function isValidResponse(batch: readonly ReceivedMessage[], answer: Exclude<BatchAnswer, 'failed'>): boolean {
  if (!Array.isArray(answer.batchItemFailures)) return false;
  const ids = new Set(batch.map((message) => message.messageId));
  return answer.batchItemFailures.every((failure) => typeof failure?.itemIdentifier === 'string' && ids.has(failure.itemIdentifier));
}
