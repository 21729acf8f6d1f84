/**
 * Which shape a consumer's events arrive in, and the runtime told so through its environment
 * (`EVENT_ENVELOPE`, `EVENT_ID_PATH`). A queue fed by an SNS subscription with raw delivery off
 * receives SNS's notification JSON; one fed by an EventBridge rule receives the event JSON; the
 * runtime must unwrap exactly that shape, and key dedup on the event inside it: SNS's `MessageId`
 * and EventBridge's `id` change when the producer retries its publish (docs/envelopes.md).
 */
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CONSUMER_ENV } from '../aws/consumer-env';
import { ENVELOPE_FORMATS, EnvelopeFormat, eventIdPathProblem, isEnvelopeFormat } from '../aws/envelope-formats';

export { EnvelopeFormat } from '../aws/envelope-formats';

/** The shape of the events a consumer receives. */
export interface EventEnvelope {
  /** How the runtime unwraps each record: our own envelope, an SNS notification, an EventBridge event or a CloudEvent. */
  readonly format: EnvelopeFormat;
  /**
   * EventBridge only: the dotted path of the dedup key in the event (`detail.orderId`), when
   * `detail` is not our envelope (an AWS service's event, say). Never `id`: EventBridge gives a
   * retried `PutEvents` a new one.
   * @default - `detail` is our envelope, keyed on its `eventId`
   */
  readonly eventIdPath?: string;
}

const NATIVE: EventEnvelope = { format: EnvelopeFormat.NATIVE };

/**
 * Checks an envelope prop: a known format the source can deliver, and an `eventIdPath` only for
 * EventBridge, inside `detail`.
 * @throws Error naming the prop and what is accepted
 */
export function checkEnvelope(envelope: EventEnvelope | undefined, accepted: readonly EnvelopeFormat[] = ENVELOPE_FORMATS): void {
  if (envelope === undefined) return;
  if (!isEnvelopeFormat(envelope.format) || !accepted.includes(envelope.format)) {
    throw new Error(`envelope.format must be one of ${accepted.join(', ')} (given ${JSON.stringify(envelope.format)})`);
  }
  if (envelope.eventIdPath === undefined) return;
  if (envelope.format !== EnvelopeFormat.EVENTBRIDGE) throw new Error(`envelope.eventIdPath is for the eventbridge format only (format is ${envelope.format})`);
  const problem = eventIdPathProblem(envelope.eventIdPath);
  if (problem !== undefined) throw new Error(`envelope.eventIdPath ${problem}`);
}

/**
 * The envelope of one consumer function: the one its props name, else the one its first
 * subscription implies. Every later subscription must deliver the same shape, since one function
 * decodes one shape.
 */
export class DeliveredEnvelope {
  private current: EventEnvelope;
  private decidedBy: string | undefined;

  public constructor(
    private readonly fn: LambdaFunction,
    given: EventEnvelope | undefined,
  ) {
    this.current = given ?? NATIVE;
    this.decidedBy = given ? 'the envelope prop' : undefined;
    if (given) this.apply();
  }

  /** The envelope the function decodes. */
  public get envelope(): EventEnvelope {
    return this.current;
  }

  /**
   * Records that `by` (a subscription, a rule target) delivers `format`.
   * @throws Error when an earlier decision or the props named another format
   */
  public require(format: EnvelopeFormat, by: string): void {
    if (this.decidedBy === undefined) {
      this.current = { format };
      this.decidedBy = by;
      this.apply();
      return;
    }
    if (this.current.format !== format) {
      throw new Error(`${by} delivers the ${format} envelope, but ${this.decidedBy} set ${this.current.format}: one consumer decodes one shape (use another QueueConsumer, or change the subscription)`);
    }
  }

  private apply(): void {
    if (this.current.format === EnvelopeFormat.NATIVE) return;
    this.fn.addEnvironment(CONSUMER_ENV.envelope, this.current.format);
    if (this.current.eventIdPath !== undefined) this.fn.addEnvironment(CONSUMER_ENV.eventIdPath, this.current.eventIdPath);
  }
}
