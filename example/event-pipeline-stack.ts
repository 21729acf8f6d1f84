import * as path from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  addEncryptedTopic,
  AlarmTopic,
  DynamoStreamConsumer,
  grantPublishToEncryptedTopic,
  IdempotencyTable,
  KinesisConsumer,
  type PipelineConsumer,
  PipelineDashboard,
  QueueConsumer,
  SqlEffectDatabase,
  TableAction,
  tableDefaults,
} from '../lib';
import type { ManagedInstancesProps } from '../lib';
import { GENERATED_CONSUMERS } from './consumers';
import { addExampleCapacityProvider } from './managed-instances';
import { PAGE_VIEW_COUNTER_SHARDS } from './counter-shards';
import { INVOICE_PAYMENTS_SCHEMA, INVOICES_TABLE, PAYMENTS_TABLE } from './invoice-payments-schema';

/** Where the handlers live in this repository. */
const DEFAULT_HANDLERS_DIR = path.join(__dirname, 'handlers');

/**
 * Adds one consumer, and whatever only it uses, to the pipeline. It receives the stack, whose
 * public members are the shared resources (alarm topic, idempotency table, tables, topics). When
 * it returns its consumer construct (as `eo new consumer`'s do), the stack's dashboard draws it.
 */
export type AddConsumer = (pipeline: EventPipelineStack) => unknown;

/** Props of {@link EventPipelineStack}. */
export interface EventPipelineStackProps extends StackProps {
  /**
   * An address that receives every alarm by email.
   * @default - no email subscription
   */
  readonly alarmEmail?: string;
  /**
   * The directory holding the handler files (`page-view-counter.ts`, `order-projection.ts`,
   * `shipment-notifier.ts`, `account-ledger.ts`, `invoice-payments.ts`).
   * @default - `example/handlers` of this repository
   */
  readonly handlersDir?: string;
  /**
   * Consumers added after the examples, each with the stack's shared resources.
   * @default - `GENERATED_CONSUMERS` of `example/consumers/index.ts`, which `eo new consumer` appends to
   */
  readonly consumers?: readonly AddConsumer[];
  /**
   * An Aurora PostgreSQL cluster with the Data API on, for the SQL effects database to use instead
   * of making one (with its VPC and key): `SqlEffectDatabase`'s `existingCluster`. bin/app.ts
   * takes it from the context `sqlCluster`; the deploy test passes the cluster it made on moto,
   * whose CloudFormation cannot create an Aurora cluster (test/deploy/moto-gaps.ts).
   * @default - a new cluster
   */
  readonly sqlCluster?: SqlClusterArns;
  /**
   * Runs every example consumer on Lambda Managed Instances, on one capacity provider of the stack
   * (example/managed-instances.ts). bin/app.ts takes it from the context `managedInstances`; `npm run
   * demo -- --managed-instances` synthesizes with it.
   * @default false: Lambda's default model
   */
  readonly managedInstances?: boolean;
}

/** An existing cluster of {@link EventPipelineStackProps.sqlCluster}, by ARN: what a context value can hold. */
export interface SqlClusterArns {
  /** The cluster's ARN. */
  readonly clusterArn: string;
  /** The ARN of the secret the Data API signs in with. */
  readonly secretArn: string;
  /**
   * The ARN of the customer-managed key the secret is encrypted with.
   * @default - Secrets Manager's own key
   */
  readonly secretKeyArn?: string;
}

/**
 * The example pipelines, one per dedup pattern:
 * - page views: SNS topic -> SQS queue -> `page-view-counter` (dedup in the same transaction as the count);
 * - orders: Kinesis stream -> `order-projection` (versioned upsert) -> orders table, and its
 *   generation 2 beside it, mapping off, filled by `eo replay` into a rebuilt table;
 * - shipments: the orders table's stream -> `shipment-notifier` (Powertools idempotency) -> SNS;
 * - ledger: SQS FIFO queue -> `account-ledger` (in order per account, dedup in the same transaction);
 * - payments: SQS queue -> `invoice-payments` (effects in PostgreSQL, dedup rows in the same SQL
 *   transaction) -> the SQL effects database (Aurora PostgreSQL through the RDS Data API).
 * Every DLQ and every stream consumer notifies the alarm topic. Consumers that `eo new consumer`
 * generated (or that `consumers` lists) come after the examples.
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
  /** Where producers publish page views: fanned out to the page-views queue (and to whoever else subscribes). */
  public readonly pageViewsTopic: Topic;
  /** page-views queue -> page-view-counter. */
  public readonly pageViewCounter: QueueConsumer;
  /** orders stream -> order-projection. */
  public readonly orderProjection: KinesisConsumer;
  /**
   * Generation 2 of the order projection, as a rebuild stands beside the live generation: the
   * same stream and handler, its mapping off, its effects into {@link rebuiltOrdersTable}. `eo
   * replay order-projection --generation 2` fills it from the stream; `eo compare order-projection
   * --generation 2` holds it against the orders table (docs/operations.md, "Rebuild").
   */
  public readonly orderProjectionRebuild: KinesisConsumer;
  /** What generation 2 of the order projection writes: the orders table as a replay of the stream rebuilds it. */
  public readonly rebuiltOrdersTable: Table;
  /** orders table stream -> shipment-notifier. */
  public readonly shipmentNotifier: DynamoStreamConsumer;
  /** Account balances and the order their entries applied in, keyed `pk` (the account). */
  public readonly ledgerTable: Table;
  /** ledger FIFO queue -> account-ledger. */
  public readonly accountLedger: QueueConsumer;
  /**
   * The PostgreSQL database of the SQL effects: the dedup table, and the tables that consumers add
   * with `addSchema`. A consumer reaches it through the Data API once `connect`ed.
   */
  public readonly sqlDatabase: SqlEffectDatabase;
  /** payments queue -> invoice-payments, whose effects are rows of the SQL database. */
  public readonly invoicePayments: QueueConsumer;
  /** One dashboard over the examples and the added consumers, named after the stack (output `DashboardName`). */
  public readonly dashboard: PipelineDashboard;
  /** Where the consumers run when {@link EventPipelineStackProps.managedInstances} is on; what `eo new consumer`'s consumers may pass on too. */
  public readonly managedInstances: ManagedInstancesProps | undefined;
  private readonly handlersDir: string;

  constructor(scope: Construct, id: string, props: EventPipelineStackProps = {}) {
    super(scope, id, props);
    this.handlersDir = props.handlersDir ?? DEFAULT_HANDLERS_DIR;
    this.managedInstances = props.managedInstances === true ? addExampleCapacityProvider(this) : undefined;
    this.alarmTopic = new AlarmTopic(this, 'Alarms', { email: props.alarmEmail });
    this.idempotencyTable = new IdempotencyTable(this, 'IdempotencyTable');
    this.countersTable = this.addCountersTable();
    this.ordersTable = this.addOrdersTable();
    this.notificationsTopic = this.addNotificationsTopic();
    this.pageViewCounter = this.addPageViewCounter(this.handlerEntry('page-view-counter.ts'));
    this.pageViewsTopic = this.addPageViewsTopic(this.pageViewCounter);
    this.orderProjection = this.addOrderProjection(this.handlerEntry('order-projection.ts'));
    this.rebuiltOrdersTable = this.addRebuiltOrdersTable();
    this.orderProjectionRebuild = this.addOrderProjectionRebuild(this.handlerEntry('order-projection.ts'));
    this.shipmentNotifier = this.addShipmentNotifier(this.handlerEntry('shipment-notifier.ts'));
    this.ledgerTable = this.addLedgerTable();
    this.accountLedger = this.addAccountLedger(this.handlerEntry('account-ledger.ts'));
    this.sqlDatabase = this.addSqlDatabase(props.sqlCluster);
    this.invoicePayments = this.addInvoicePayments(this.handlerEntry('invoice-payments.ts'));
    this.addOutputs();
    const added = (props.consumers ?? GENERATED_CONSUMERS).map((addConsumer) => addConsumer(this));
    this.dashboard = this.addDashboard(added.filter(isPipelineConsumer));
  }

  /** The path of a handler file, e.g. `handlerEntry('page-view-counter.ts')`. */
  public handlerEntry(fileName: string): string {
    return path.join(this.handlersDir, fileName);
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
      managedInstances: this.managedInstances,
      consumerName: 'page-view-counter',
      entry,
      alarmTopic: this.alarmTopic.topic,
      tables: {
        // The counts: `ADD views :n` in the batch's transactions.
        COUNTERS_TABLE: { table: this.countersTable, actions: [TableAction.UPDATE_ITEM] },
        // The dedup puts in the same transactions, and the read of redelivered events' records.
        IDEMPOTENCY_TABLE: {
          table: this.idempotencyTable.table,
          actions: [TableAction.PUT_ITEM, TableAction.BATCH_GET_ITEM],
        },
      },
      environment: { ACCEPT_SCHEMA_V2: 'false', COUNTER_SHARDS: String(PAGE_VIEW_COUNTER_SHARDS) },
      // Batch commit pays off with big batches: up to 100 page views per invocation, gathered for at most a second.
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
    });
  }

  /**
   * Page views fan out through a topic to the counter's queue, with raw delivery: the queue's
   * body is the published envelope itself, the same as a producer's direct send, so both reach
   * the counter alike. Dedup keys on the envelope's `eventId`, not on SNS's `MessageId`, which a
   * retried `Publish` changes.
   */
  private addPageViewsTopic(counter: QueueConsumer): Topic {
    const topic = addEncryptedTopic(this, 'PageViewsTopic', { description: 'Encrypts the page views topic' }).topic;
    counter.subscribeTo(topic, { rawMessageDelivery: true });
    return topic;
  }

  private addOrderProjection(entry: string): KinesisConsumer {
    return new KinesisConsumer(this, 'OrderProjection', {
      managedInstances: this.managedInstances,
      consumerName: 'order-projection',
      entry,
      alarmTopic: this.alarmTopic.topic,
      // putIfNewer: one conditional put per event.
      tables: { ORDERS_TABLE: { table: this.ordersTable, actions: [TableAction.PUT_ITEM] } },
    });
  }

  /** Keyed as the orders table; no stream: the shipment notifier reads the live generation's. */
  private addRebuiltOrdersTable(): Table {
    return new Table(this, 'RebuiltOrdersTable', {
      ...tableDefaults(),
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
  }

  /**
   * The order projection's next generation: the live one's stream, its retention stated, and its
   * handler, with the rebuilt table under the same variable. Its mapping is off, so that only
   * `eo replay --generation 2` invokes it; making it live is a deploy (docs/operations.md, "Rebuild").
   */
  private addOrderProjectionRebuild(entry: string): KinesisConsumer {
    return new KinesisConsumer(this, 'OrderProjectionRebuild', {
      managedInstances: this.managedInstances,
      consumerName: 'order-projection',
      generation: 2,
      entry,
      stream: this.orderProjection.stream,
      retentionPeriod: this.orderProjection.replayableFor,
      mappingEnabled: false,
      alarmTopic: this.alarmTopic.topic,
      tables: { ORDERS_TABLE: { table: this.rebuiltOrdersTable, actions: [TableAction.PUT_ITEM] } },
    });
  }

  private addShipmentNotifier(entry: string): DynamoStreamConsumer {
    const notifier = new DynamoStreamConsumer(this, 'ShipmentNotifier', {
      managedInstances: this.managedInstances,
      consumerName: 'shipment-notifier',
      entry,
      table: this.ordersTable,
      alarmTopic: this.alarmTopic.topic,
      tables: {
        // Powertools idempotency's record: put (the lock), get, update (COMPLETED), delete (after a
        // failed effect). The orders stream's read is the event source's own grant.
        IDEMPOTENCY_TABLE: {
          table: this.idempotencyTable.table,
          actions: [TableAction.PUT_ITEM, TableAction.GET_ITEM, TableAction.UPDATE_ITEM, TableAction.DELETE_ITEM],
        },
      },
      environment: { NOTIFICATIONS_TOPIC_ARN: this.notificationsTopic.topicArn },
    });
    grantPublishToEncryptedTopic(this.notificationsTopic, notifier.function);
    return notifier;
  }

  private addLedgerTable(): Table {
    return new Table(this, 'LedgerTable', {
      ...tableDefaults(),
      partitionKey: { name: 'pk', type: AttributeType.STRING },
    });
  }

  /** A FIFO queue: each account's entries apply in the order they were sent (the account is the message group). */
  private addAccountLedger(entry: string): QueueConsumer {
    return new QueueConsumer(this, 'AccountLedger', {
      managedInstances: this.managedInstances,
      consumerName: 'account-ledger',
      entry,
      alarmTopic: this.alarmTopic.topic,
      fifo: true,
      tables: {
        // The entry's append and balance update, in the same transactions as the dedup puts.
        LEDGER_TABLE: { table: this.ledgerTable, actions: [TableAction.UPDATE_ITEM] },
        IDEMPOTENCY_TABLE: { table: this.idempotencyTable.table, actions: [TableAction.PUT_ITEM, TableAction.BATCH_GET_ITEM] },
      },
    });
  }

  /** A new cluster, or the one `sqlCluster` names (its key imported by ARN). */
  private addSqlDatabase(cluster: SqlClusterArns | undefined): SqlEffectDatabase {
    const alarmTopic = this.alarmTopic.topic;
    if (cluster === undefined) return new SqlEffectDatabase(this, 'SqlEffects', { alarmTopic });
    const { clusterArn, secretArn, secretKeyArn } = cluster;
    const secretKey = secretKeyArn === undefined ? undefined : Key.fromKeyArn(this, 'SqlClusterSecretKey', secretKeyArn);
    return new SqlEffectDatabase(this, 'SqlEffects', { alarmTopic, existingCluster: { clusterArn, secretArn, secretKey } });
  }

  /** A standard queue; the effects and their dedup rows commit in one PostgreSQL transaction per batch. */
  private addInvoicePayments(entry: string): QueueConsumer {
    const consumer = new QueueConsumer(this, 'InvoicePayments', {
      managedInstances: this.managedInstances,
      consumerName: 'invoice-payments',
      entry,
      alarmTopic: this.alarmTopic.topic,
      // One transaction per batch: its dedup rows in one multi-row insert, one increment per invoice.
      batchSize: 50,
      maxBatchingWindow: Duration.seconds(1),
    });
    this.sqlDatabase.addSchema('InvoicePayments', INVOICE_PAYMENTS_SCHEMA);
    // Declared for the tools: a rebuilt generation's replay is refused while it writes to these.
    this.sqlDatabase.connect(consumer.function, { effectTables: [PAYMENTS_TABLE, INVOICES_TABLE] });
    return consumer;
  }

  /**
   * The dashboard, after every consumer. Named after the stack, so that its output is a plain
   * string: local mode creates no dashboard, and could not resolve a `Ref` to one.
   */
  private addDashboard(added: readonly PipelineConsumer[]): PipelineDashboard {
    const dashboardName = this.stackName;
    const consumers = [this.pageViewCounter, this.orderProjection, this.orderProjectionRebuild, this.shipmentNotifier, this.accountLedger, this.invoicePayments, ...added];
    const dashboard = new PipelineDashboard(this, 'Dashboard', { dashboardName, consumers });
    new CfnOutput(this, 'DashboardName', { value: dashboardName });
    return dashboard;
  }

  /** Plain outputs, not exports: the CLI and the local engines read them; no stack imports them. */
  private addOutputs(): void {
    const outputs: Record<string, string> = {
      PageViewsQueueUrl: this.pageViewCounter.queue.queueUrl,
      PageViewsTopicArn: this.pageViewsTopic.topicArn,
      PageViewCounterDlqUrl: this.pageViewCounter.deadLetterQueue.queueUrl,
      OrdersStreamName: this.orderProjection.stream.streamName,
      OrderProjectionDlqUrl: this.orderProjection.deadLetterQueue.queueUrl,
      ShipmentNotifierDlqUrl: this.shipmentNotifier.deadLetterQueue.queueUrl,
      LedgerQueueUrl: this.accountLedger.queue.queueUrl,
      AccountLedgerDlqUrl: this.accountLedger.deadLetterQueue.queueUrl,
      PaymentsQueueUrl: this.invoicePayments.queue.queueUrl,
      InvoicePaymentsDlqUrl: this.invoicePayments.deadLetterQueue.queueUrl,
      SqlDatabaseName: this.sqlDatabase.databaseName,
      LedgerTableName: this.ledgerTable.tableName,
      IdempotencyTableName: this.idempotencyTable.table.tableName,
      CountersTableName: this.countersTable.tableName,
      OrdersTableName: this.ordersTable.tableName,
      RebuiltOrdersTableName: this.rebuiltOrdersTable.tableName,
      OrderProjectionRebuildDlqUrl: this.orderProjectionRebuild.deadLetterQueue.queueUrl,
      NotificationsTopicArn: this.notificationsTopic.topicArn,
      AlarmTopicArn: this.alarmTopic.topic.topicArn,
    };
    for (const [id, value] of Object.entries(outputs)) {
      new CfnOutput(this, id, { value });
    }
  }
}

/** Whether an {@link AddConsumer} returned a consumer construct, which the dashboard can draw. */
function isPipelineConsumer(added: unknown): added is PipelineConsumer {
  return added instanceof QueueConsumer || added instanceof KinesisConsumer || added instanceof DynamoStreamConsumer;
}
