/**
 * One pass over a queue: receive every message once, hand it to a visitor, and put back what the
 * visitor keeps. Kept messages stay invisible until the pass ends, so the pass ends when the
 * queue shows nothing new; then they are made visible again at once. A message is never deleted
 * here: a visitor deletes what it has dealt with, after dealing with it.
 *
 * If the process dies mid-pass, kept messages reappear when their visibility timeout expires:
 * nothing is lost, a later pass sees them again.
 */
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { release } from '../../aws/sqs/peek';
import { SQS_LIMITS } from '../../aws/limits';


/** What a visitor did with a message. */
export const Verdict = {
  /** Dealt with (deleted by the visitor): nothing to put back. */
  DONE: 'done',
  /** Left in the queue: made visible again when the pass ends. */
  KEEP: 'keep',
  /** End the pass now; this message is put back untouched. */
  STOP: 'stop',
} as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

/** Defaults shared by the code and its documentation. */
export const SWEEP_DEFAULTS = {
  visibilityTimeoutSeconds: 120,
  receiveWaitSeconds: 1,
} as const;

export interface SweepOptions {
  /**
   * How long a received message stays hidden: longer than the visitor needs for a batch of 10,
   * or a message comes back mid-pass (it is then recognised and kept, not visited twice).
   * @default 120
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Long poll of each receive; the pass ends at the first receive that returns nothing. @default 1 */
  readonly receiveWaitSeconds?: number;
}

export interface SweepStats {
  readonly visited: number;
  readonly kept: number;
  readonly stopped: boolean;
}

/**
 * Visits every message in the queue once, in the order SQS hands them out.
 *
 * @example
 * await sweep(sqs, url, async (message) => (await redriveOne(message)) ? Verdict.DONE : Verdict.KEEP);
 */
export async function sweep(sqs: SQSClient, queueUrl: string, visit: (message: Message) => Promise<Verdict>, options: SweepOptions = {}): Promise<SweepStats> {
  const pass = new Pass(visit);
  try {
    for (let batch = await receive(sqs, queueUrl, options); batch.length > 0; batch = await receive(sqs, queueUrl, options)) {
      if (await pass.visitBatch(batch)) return pass.stats(true);
    }
    return pass.stats(false);
  } finally {
    await putBack(sqs, queueUrl, pass.toPutBack());
  }
}

/** What one pass has seen, kept, and not yet got to. */
class Pass {
  private readonly kept = new Map<string, Message>();
  private readonly visited = new Set<string>();
  private pending: Message[] = [];

  public constructor(private readonly visit: (message: Message) => Promise<Verdict>) {}

  /** Visits a batch in order; true when the visitor stopped the pass. */
  public async visitBatch(batch: readonly Message[]): Promise<boolean> {
    this.pending = [...batch];
    for (let message = this.pending[0]; message !== undefined; message = this.pending[0]) {
      const id = message.MessageId ?? '';
      if (this.visited.has(id)) {
        // Back after its visibility expired: keep the newest receipt handle, do not visit twice.
        if (this.kept.has(id)) this.kept.set(id, message);
      } else {
        const verdict = await this.visit(message);
        if (verdict === Verdict.STOP) return true;
        this.visited.add(id);
        if (verdict === Verdict.KEEP) this.kept.set(id, message);
      }
      this.pending.shift();
    }
    return false;
  }

  public stats(stopped: boolean): SweepStats {
    return { visited: this.visited.size, kept: this.kept.size, stopped };
  }

  /** Kept messages and the rest of the batch a stop or an error left unvisited. */
  public toPutBack(): Message[] {
    return [...this.kept.values(), ...this.pending];
  }
}

/** Best effort: a message not put back reappears when its visibility timeout expires. */
async function putBack(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  try {
    await release(sqs, queueUrl, messages);
  } catch {
    // Nothing is lost: SQS makes them visible again by itself.
  }
}

async function receive(sqs: SQSClient, queueUrl: string, options: SweepOptions): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: queueUrl,
    MaxNumberOfMessages: SQS_LIMITS.maxReceiveMessages,
    VisibilityTimeout: options.visibilityTimeoutSeconds ?? SWEEP_DEFAULTS.visibilityTimeoutSeconds,
    WaitTimeSeconds: options.receiveWaitSeconds ?? SWEEP_DEFAULTS.receiveWaitSeconds,
    MessageSystemAttributeNames: ['All'],
    MessageAttributeNames: ['All'],
  }));
  return Messages;
}

/** Every message in the queue, left in place (visible again once read). */
export async function peekQueue(sqs: SQSClient, queueUrl: string, options: SweepOptions & { readonly limit?: number } = {}): Promise<{ messages: Message[]; truncated: boolean }> {
  const messages: Message[] = [];
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const stats = await sweep(sqs, queueUrl, async (message) => {
    if (messages.length >= limit) return Verdict.STOP;
    messages.push(message);
    return Verdict.KEEP;
  }, { visibilityTimeoutSeconds: 30, ...options });
  return { messages, truncated: stats.stopped };
}
