/**
 * SQS's cap on a received message's visibility: at most 12 hours from the ReceiveMessage request
 * that handed it out. Extending the timeout does not reset the cap, so a ChangeMessageVisibility
 * whose new timeout would end past it is refused, `VisibilityTimeout` 43200 included as soon as
 * any time has passed since the receive (API Reference, ChangeMessageVisibility: "If you try to
 * extend the visibility timeout beyond the maximum, your request is rejected"; SQS Developer
 * Guide, "Visibility timeout": 12 hours from the time SQS receives the ReceiveMessage request).
 * AWS's answer, recorded in localstack/localstack#3956 and aws/aws-sdk-net#794:
 * `InvalidParameterValue`, "Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total
 * VisibilityTimeout for the message is beyond the limit [43200 seconds]"; a batch entry fails alone.
 * fauxqs accepts it.
 *
 * The budget learns receipt handles from the ReceiveMessage answers that pass the gateway. A handle
 * it never saw (received before the gateway started, or straight from the engine), or forgot, is
 * not checked: less is known, nothing is refused wrongly.
 */
import { fail, OK, type CheckResult } from './aws-error';
import { SQS_LIMITS } from '../../aws/limits';
import { sqsError } from './sqs-errors';

export const SQS_VISIBILITY_BUDGET_RULES = { totalVisibility: 'sqs.visibility-timeout.total' } as const;

/** Defaults of {@link VisibilityBudget}. */
export const VISIBILITY_BUDGET_DEFAULTS = {
  /** Receipt handles remembered at most; past it the oldest are forgotten. */
  maxHandles: 100_000,
} as const;

export interface VisibilityBudgetOptions {
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
  /** @default VISIBILITY_BUDGET_DEFAULTS.maxHandles */
  readonly maxHandles?: number;
}

const CAP_MS = SQS_LIMITS.maxVisibilityTimeoutSeconds * 1000;

export class VisibilityBudget {
  /** Receive time (epoch ms) by receipt handle, oldest first. */
  private readonly receivedAt = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxHandles: number;

  public constructor(options: VisibilityBudgetOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxHandles = options.maxHandles ?? VISIBILITY_BUDGET_DEFAULTS.maxHandles;
    if (!Number.isInteger(this.maxHandles) || this.maxHandles < 1) throw new RangeError(`maxHandles must be a whole number >= 1 (given ${this.maxHandles})`);
  }

  /** The time now, for the caller to note when a ReceiveMessage request arrived. */
  public clock(): number {
    return this.now();
  }

  /** The handles a ReceiveMessage answered with; `atMs` is when its request arrived. Forgets handles whose cap has passed. */
  public received(receiptHandles: readonly string[], atMs: number): void {
    for (const handle of receiptHandles) {
      this.receivedAt.delete(handle);
      this.receivedAt.set(handle, atMs);
    }
    this.forgetExpired();
  }

  /** The handles of deleted messages: no longer in flight. */
  public forget(receiptHandles: readonly string[]): void {
    for (const handle of receiptHandles) this.receivedAt.delete(handle);
  }

  /** Whether a visibility timeout of `timeoutSeconds` from now stays within the message's 12 hours. */
  public check(receiptHandle: string | undefined, timeoutSeconds: number | undefined): CheckResult {
    const receivedAt = receiptHandle === undefined ? undefined : this.receivedAt.get(receiptHandle);
    if (receivedAt === undefined || timeoutSeconds === undefined) return OK;
    if (this.now() - receivedAt + timeoutSeconds * 1000 <= CAP_MS) return OK;
    return fail(
      sqsError(
        SQS_VISIBILITY_BUDGET_RULES.totalVisibility,
        'InvalidParameterValue',
        `Value ${timeoutSeconds} for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [${SQS_LIMITS.maxVisibilityTimeoutSeconds} seconds]`,
      ),
    );
  }

  /** Handles remembered now. */
  public size(): number {
    return this.receivedAt.size;
  }

  private forgetExpired(): void {
    const expiredBefore = this.now() - CAP_MS;
    for (const [handle, at] of this.receivedAt) {
      if (at >= expiredBefore && this.receivedAt.size <= this.maxHandles) break;
      this.receivedAt.delete(handle);
    }
  }
}
