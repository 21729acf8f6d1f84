import { Duration } from 'aws-cdk-lib';
import { type IStream, Stream, StreamEncryption } from 'aws-cdk-lib/aws-kinesis';
import { KinesisEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAM_CONSUMER_DEFAULTS } from './defaults';
import { generationOf, serviceNameOf } from './consumer-props';
import type { ConsumerAlarms } from './consumer-alarms';
import type { DlqAlarm } from './dlq-alarm';
import type { IteratorAgeAlarm } from './iterator-age-alarm';
import type { FailureArchive } from './failure-archive';
import {
  addFailureArchive,
  addIteratorAgeAlarm,
  addStreamConsumerAlarms,
  addStreamDlq,
  addStreamFunction,
  type StreamConsumerProps,
  streamEventSourceProps,
  validateStreamConsumerProps,
} from './stream-consumer';
import { checkEnvelope, DeliveredEnvelope, EnvelopeFormat, type EventEnvelope } from './event-envelope';
import { checkDurationRange } from './validation';

/** Props of {@link KinesisConsumer}. */
export interface KinesisConsumerProps extends StreamConsumerProps {
  /**
   * The stream to consume. When given, `retentionPeriod` is required and must state the
   * stream's retention, which the dedup window depends on.
   * @default - a new stream: one shard, encrypted with `aws/kinesis`
   */
  readonly stream?: IStream;
  /**
   * The stream's retention period. Sets a new stream's retention, or states a given stream's.
   * @default 24 hours (`STREAM_CONSUMER_DEFAULTS.kinesisRetentionPeriod`)
   * @range 24 hours..365 days (Kinesis's limits)
   */
  readonly retentionPeriod?: Duration;
  /**
   * The shape of the records' data, which the runtime unwraps (docs/envelopes.md): our envelope,
   * CloudEvents in structured JSON mode, or EventBridge events (a rule with a Kinesis target).
   * SNS cannot deliver to a stream.
   * @default - our own envelope (`native`)
   */
  readonly envelope?: EventEnvelope;
}

/** The shapes a stream's records can carry. */
const KINESIS_ENVELOPES: readonly EnvelopeFormat[] = [EnvelopeFormat.NATIVE, EnvelopeFormat.EVENTBRIDGE, EnvelopeFormat.CLOUDEVENTS];

/**
 * A Kinesis stream consumed by a Lambda function with safe retry settings: bisect on error,
 * bounded retries and record age, partial batch responses, an alarmed DLQ as the on-failure
 * destination, and an iterator age alarm.
 */
export class KinesisConsumer extends Construct {
  /** The consumer's name. */
  public readonly consumerName: string;
  /** The consumer's generation: 1 unless it is a rebuild (`generation` prop). */
  public readonly generation: number;
  /** The `service` dimension of the runtime's metrics (`POWERTOOLS_SERVICE_NAME`): the `serviceName` prop, else the consumer's name (`<name>@g<n>` from generation 2). */
  public readonly serviceName: string;
  /** The event source mapping's UUID (its `Ref`), the `EventSourceMappingUUID` dimension of its metrics. */
  public readonly mappingUuid: string;
  /** The source stream. */
  public readonly stream: IStream;
  /** The DLQ: the on-failure destination, and where the function sends permanent failures. */
  public readonly deadLetterQueue: Queue;
  /** The alarm on the DLQ's depth. */
  public readonly dlqAlarm: DlqAlarm;
  /** The consumer function. */
  public readonly function: NodejsFunction;
  /** The alarm on the function's iterator age. */
  public readonly iteratorAgeAlarm: IteratorAgeAlarm;
  /** The alarms besides the DLQ's and the iterator age's: errors, throttles, conflicting duplicates, failed invocations, dropped events. */
  public readonly consumerAlarms: ConsumerAlarms;
  /** With `onFailure: 's3'`: the bucket that keeps failed batches whole, and its alarmed index queue. */
  public readonly failureArchive?: FailureArchive;
  /** The shape of the records' data that the function decodes. */
  public readonly envelope: EventEnvelope;
  /**
   * How far back `eo replay` can reach for this consumer: the source's retention, which the
   * construct has checked the dedup TTL outlasts (with the DLQ's retention and the redrive
   * allowance), so that a replay of anything the source still holds finds its dedup records. A
   * longer history needs an archive of the raw events (docs/operations.md, "Replay").
   */
  public readonly replayableFor: Duration;

  constructor(scope: Construct, id: string, props: KinesisConsumerProps) {
    super(scope, id);
    validateKinesisConsumerProps(props);
    const retention = props.retentionPeriod ?? STREAM_CONSUMER_DEFAULTS.kinesisRetentionPeriod;
    this.replayableFor = retention;
    this.consumerName = props.consumerName;
    this.serviceName = serviceNameOf(props);
    this.generation = generationOf(props);
    this.stream = props.stream ?? this.addStream(retention);
    const dlq = addStreamDlq(this, props);
    this.deadLetterQueue = dlq.queue;
    this.dlqAlarm = dlq.alarm;
    this.failureArchive = addFailureArchive(this, props);
    this.function = addStreamFunction(this, props, this.deadLetterQueue, retention);
    this.envelope = new DeliveredEnvelope(this.function, props.envelope).envelope;
    this.mappingUuid = this.addEventSource(props);
    this.iteratorAgeAlarm = addIteratorAgeAlarm(this, this.function, props);
    this.consumerAlarms = addStreamConsumerAlarms(this, this.function, this.mappingUuid, props);
  }

  private addStream(retentionPeriod: Duration): Stream {
    return new Stream(this, 'Stream', {
      shardCount: 1,
      retentionPeriod,
      encryption: StreamEncryption.MANAGED,
    });
  }

  /** Also grants the function read access to the stream and send access to the DLQ; returns the mapping's UUID. */
  private addEventSource(props: KinesisConsumerProps): string {
    const source = new KinesisEventSource(this.stream, streamEventSourceProps(props, this.deadLetterQueue, this.failureArchive));
    this.function.addEventSource(source);
    return source.eventSourceMappingId;
  }
}

function validateKinesisConsumerProps(props: KinesisConsumerProps): void {
  checkEnvelope(props.envelope, KINESIS_ENVELOPES);
  checkDurationRange('retentionPeriod', props.retentionPeriod, Duration.hours(24), Duration.days(365));
  // A given stream's retention cannot be read back; guessing it could shorten the dedup window.
  if (props.stream !== undefined && props.retentionPeriod === undefined) {
    throw new Error(`retentionPeriod must be given with stream (given stream ${props.stream.node.path} alone)`);
  }
  validateStreamConsumerProps(props, props.retentionPeriod ?? STREAM_CONSUMER_DEFAULTS.kinesisRetentionPeriod);
}
