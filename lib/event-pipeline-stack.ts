import * as path from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { AlarmTopic } from './alarm-topic';
import { DynamoStreamConsumer } from './dynamo-stream-consumer';
import { addEncryptedTopic } from './encrypted-topic';
import { IdempotencyTable } from './idempotency-table';
import { KinesisConsumer } from './kinesis-consumer';
import { QueueConsumer } from './queue-consumer';
import { tableDefaults } from './table-defaults';

/** Where the handlers live in this repository. */
const DEFAULT_HANDLERS_DIR = path.join(__dirname, '..', 'lambdas', 'handlers');

/** Props of {@link EventPipelineStack}. */
export interface EventPipelineStackProps extends StackProps {
  /**
   * An address that receives every alarm by email.
   * @default - no email subscription
   */
  readonly alarmEmail?: string;
  /**
   * The directory holding the handler files (`page-view-counter.ts`, `order-projection.ts`,
   * `shipment-notifier.ts`).
   * @default - `lambdas/handlers` of this repository
   */
  readonly handlersDir?: string;
}

/**
 * The example pipelines, one per dedup pattern:
 * - page views: SQS queue -> `page-view-counter` (dedup in the same transaction as the count);
 * - orders: Kinesis stream -> `order-projection` (versioned upsert) -> orders table;
 * - shipments: the orders table's stream -> `shipment-notifier` (Powertools idempotency) -> SNS.
 * Every DLQ and every stream consumer notifies the alarm topic.
 */
export class EventPipelineStack extends Stack {
  /** The topic every alarm notifies. */
  public readonly alarmTopic: AlarmTopic;
  /** Dedup records of the page view counter and the shipment notifier. */
  public readonly idempotencyTable: IdempotencyTable;
  /** Page view counts, keyed `pk` (the page). */
  public readonly countersTable: Table;
  /** The order projection, keyed `pk` (the order), streamed to the shipment notifier. */
  public readonly ordersTable: Table;
  /** Where the shipment notifier publishes. */
  public readonly notificationsTopic: Topic;
  /** page-views queue -> page-view-counter. */
  public readonly pageViewCounter: QueueConsumer;
  /** orders stream -> order-projection. */
  public readonly orderProjection: KinesisConsumer;
  /** orders table stream -> shipment-notifier. */
  public readonly shipmentNotifier: DynamoStreamConsumer;

  constructor(scope: Construct, id: string, props: EventPipelineStackProps = {}) {
    super(scope, id, props);
    const handlers = props.handlersDir ?? DEFAULT_HANDLERS_DIR;
    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: props.alarmEmail });
    this.idempotencyTable = new IdempotencyTable(this, 'IdempotencyTable');
    this.countersTable = this.addCountersTable();
    this.ordersTable = this.addOrdersTable();
    this.notificationsTopic = this.addNotificationsTopic();
    this.pageViewCounter = this.addPageViewCounter(path.join(handlers, 'page-view-counter.ts'));
    this.orderProjection = this.addOrderProjection(path.join(handlers, 'order-projection.ts'));
    this.shipmentNotifier = this.addShipmentNotifier(path.join(handlers, 'shipment-notifier.ts'));
    this.addOutputs();
  }

  private addCountersTable(): Table {
    return new Table(this, 'CountersTable', {
      ...tableDefaults(),
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
  }

  private addOrdersTable(): Table {
    return new Table(this, 'OrdersTable', {
      ...tableDefaults(),
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      // Both images: the notifier acts on a status transition, which needs the old status too.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
    });
  }

  private addNotificationsTopic(): Topic {
    return addEncryptedTopic(this, 'NotificationsTopic', {
      description: 'Encrypts the shipment notifications topic',
    }).topic;
  }

  private addPageViewCounter(entry: string): QueueConsumer {
    return new QueueConsumer(this, 'PageViewCounter', {
      consumerName: 'page-view-counter',
      entry,
      alarmTopic: this.alarmTopic.topic,
      tables: { COUNTERS_TABLE: this.countersTable, IDEMPOTENCY_TABLE: this.idempotencyTable.table },
      environment: { ACCEPT_SCHEMA_V2: 'false' },
      // Batch commit pays off with big batches: up to 100 page views per invocation, gathered for at most a second.
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
    });
  }

  private addOrderProjection(entry: string): KinesisConsumer {
    return new KinesisConsumer(this, 'OrderProjection', {
      consumerName: 'order-projection',
      entry,
      alarmTopic: this.alarmTopic.topic,
      tables: { ORDERS_TABLE: this.ordersTable },
    });
  }

  private addShipmentNotifier(entry: string): DynamoStreamConsumer {
    const notifier = new DynamoStreamConsumer(this, 'ShipmentNotifier', {
      consumerName: 'shipment-notifier',
      entry,
      table: this.ordersTable,
      alarmTopic: this.alarmTopic.topic,
      tables: { IDEMPOTENCY_TABLE: this.idempotencyTable.table },
      environment: { NOTIFICATIONS_TOPIC_ARN: this.notificationsTopic.topicArn },
    });
    this.notificationsTopic.grantPublish(notifier.function);
    Validations.of(notifier.function.role as IRole).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason:
        'Publishing to an SSE-KMS topic needs kms:GenerateDataKey* (granted by Topic.grantPublish, as ' +
        'the SNS documentation lists it) on the one key that encrypts the notifications topic.',
    });
    return notifier;
  }

  /** Plain outputs, not exports: the CLI and the local engines read them; no stack imports them. */
  private addOutputs(): void {
    const outputs: Record<string, string> = {
      PageViewsQueueUrl: this.pageViewCounter.queue.queueUrl,
      PageViewCounterDlqUrl: this.pageViewCounter.deadLetterQueue.queueUrl,
      OrdersStreamName: this.orderProjection.stream.streamName,
      OrderProjectionDlqUrl: this.orderProjection.deadLetterQueue.queueUrl,
      ShipmentNotifierDlqUrl: this.shipmentNotifier.deadLetterQueue.queueUrl,
      IdempotencyTableName: this.idempotencyTable.table.tableName,
      CountersTableName: this.countersTable.tableName,
      OrdersTableName: this.ordersTable.tableName,
      NotificationsTopicArn: this.notificationsTopic.topicArn,
      AlarmTopicArn: this.alarmTopic.topic.topicArn,
    };
    for (const [id, value] of Object.entries(outputs)) {
      new CfnOutput(this, id, { value });
    }
  }
}
