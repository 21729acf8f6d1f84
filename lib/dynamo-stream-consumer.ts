import { Validations, type Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DYNAMODB_STREAM_RETENTION } from './defaults';
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

/** Props of {@link DynamoStreamConsumer}. */
export interface DynamoStreamConsumerProps extends StreamConsumerProps {
  /** The table whose stream to consume. It must have a stream (`stream: StreamViewType...`). */
  readonly table: ITable;
}

/**
 * A DynamoDB table's stream consumed by a Lambda function with safe retry settings: bisect on
 * error, bounded retries and record age, partial batch responses, an alarmed DLQ as the
 * on-failure destination, and an iterator age alarm. The stream keeps records for 24 hours.
 */
export class DynamoStreamConsumer extends Construct {
  /** The consumer's name. */
  public readonly consumerName: string;
  /** The consumer's generation: 1 unless it is a rebuild (`generation` prop). */
  public readonly generation: number;
  /** The `service` dimension of the runtime's metrics (`POWERTOOLS_SERVICE_NAME`): the `serviceName` prop, else the consumer's name (`<name>@g<n>` from generation 2). */
  public readonly serviceName: string;
  /** The event source mapping's UUID (its `Ref`), the `EventSourceMappingUUID` dimension of its metrics. */
  public readonly mappingUuid: string;
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
  /**
   * How far back `eo replay` can reach for this consumer: the table stream's retention (24 hours, fixed by DynamoDB), which the
   * construct has checked the dedup TTL outlasts (with the DLQ's retention and the redrive
   * allowance), so that a replay of anything the source still holds finds its dedup records. A
   * longer history needs an archive of the raw events (docs/operations.md, "Replay").
   */
  public readonly replayableFor: Duration;

  constructor(scope: Construct, id: string, props: DynamoStreamConsumerProps) {
    super(scope, id);
    validateStreamConsumerProps(props, DYNAMODB_STREAM_RETENTION);
    if (props.table.tableStreamArn === undefined) {
      throw new Error(`table must have a stream (given ${props.table.node.path}, which has none)`);
    }
    this.replayableFor = DYNAMODB_STREAM_RETENTION;
    this.consumerName = props.consumerName;
    this.serviceName = serviceNameOf(props);
    this.generation = generationOf(props);
    const dlq = addStreamDlq(this, props);
    this.deadLetterQueue = dlq.queue;
    this.dlqAlarm = dlq.alarm;
    this.failureArchive = addFailureArchive(this, props);
    this.function = addStreamFunction(this, props, this.deadLetterQueue, DYNAMODB_STREAM_RETENTION);
    this.mappingUuid = this.addEventSource(props);
    this.iteratorAgeAlarm = addIteratorAgeAlarm(this, this.function, props);
    this.consumerAlarms = addStreamConsumerAlarms(this, this.function, this.mappingUuid, props);
  }

  /** Also grants the function read access to the stream and send access to the DLQ; returns the mapping's UUID. */
  private addEventSource(props: DynamoStreamConsumerProps): string {
    const source = new DynamoEventSource(props.table, streamEventSourceProps(props, this.deadLetterQueue, this.failureArchive));
    this.function.addEventSource(source);
    // addConsumerFunction always gives the function a role of its own.
    Validations.of(this.function.role as IRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams, which the DynamoDB event source needs, supports no resource-level ' +
        'permissions; every other statement of this role names its resources.',
    });
    return source.eventSourceMappingId;
  }
}
