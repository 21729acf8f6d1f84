/**
 * `effectively-once`: the CDK constructs. A consumer construct (`QueueConsumer`, `KinesisConsumer`,
 * `DynamoStreamConsumer`) builds a Lambda function with its source, its DLQ with an alarm, its
 * alarms and the environment the runtime (`effectively-once/runtime`) reads; `IdempotencyTable`
 * holds the dedup records, `AlarmTopic` receives every alarm. This file is the package's whole
 * public surface for CDK apps; every other module of lib/ is internal.
 *
 * @module effectively-once
 */
export { AlarmTopic } from './alarm-topic';
export type { AlarmTopicProps } from './alarm-topic';
export { ControlTowerRule, declineControlTowerRule, failOnEveryFinding } from './control-tower';
export { CONSUMER_ENV, CONSUMER_NAME_PATTERN, DEFAULT_TABLE_ACTIONS, TableAction } from './consumer-props';
export type { ConsumerProps, TableAccess, TableGrant } from './consumer-props';
export {
  CONSUMER_DEFAULTS,
  CONSUMER_RUNTIME,
  DLQ_RETENTION,
  DYNAMODB_STREAM_RETENTION,
  METRICS_NAMESPACE,
  QUEUE_CONSUMER_DEFAULTS,
  STREAM_CONSUMER_DEFAULTS,
} from './defaults';
export { newestNodeRuntime, OLDEST_CONSUMER_NODE_MAJOR } from './node-runtime';
export { CONSUMER_ALARM_DEFAULTS, ConsumerAlarms, MAPPING_METRICS } from './consumer-alarms';
export type { AlarmTuning, ConsumerAlarmsProps, ConsumerAlarmsWiring, OldestMessageAgeTuning, WatchedQueue } from './consumer-alarms';
export { DlqAlarm } from './dlq-alarm';
export { IDEMPOTENCY_ACTIONS, IdempotencyUse } from './idempotency-wiring';
export type { IdempotencyWiring } from './idempotency-wiring';
export type { DlqAlarmProps } from './dlq-alarm';
export { DynamoStreamConsumer } from './dynamo-stream-consumer';
export { EnvelopeFormat } from './event-envelope';
export type { EventEnvelope } from './event-envelope';
export type { EncryptedTopic, EncryptedTopicOptions } from './encrypted-topic';
export { addEncryptedTopic } from './encrypted-topic';
export type { DynamoStreamConsumerProps } from './dynamo-stream-consumer';
export { IDEMPOTENCY_KEY_ATTRIBUTE, IDEMPOTENCY_TTL_ATTRIBUTE, IdempotencyTable } from './idempotency-table';
export type { IdempotencyTableProps } from './idempotency-table';
export { DATA_API_CONSUMER_ACTIONS, SqlEffectDatabase } from './sql-effect-database';
export type { ExistingSqlCluster, SqlEffectDatabaseProps } from './sql-effect-database';
export type { SqlConnectOptions } from './sql-effect-tables';
export { SQL_ENV } from '../aws/consumer-env';
export { IteratorAgeAlarm } from './iterator-age-alarm';
export type { IteratorAgeAlarmProps } from './iterator-age-alarm';
export { KinesisConsumer } from './kinesis-consumer';
export { MANAGED_INSTANCES_LIMITS } from './managed-instances';
export { addIsolatedVpc, type IsolatedVpcProps } from './isolated-vpc';
export type { ManagedInstancesProps } from './managed-instances';
export type { KinesisConsumerProps } from './kinesis-consumer';
export { PipelineDashboard } from './pipeline-dashboard';
export type { PipelineConsumer, PipelineDashboardProps } from './pipeline-dashboard';
export { QueueConsumer } from './queue-consumer';
export type { QueueConsumerProps, QueueSubscriptionOptions } from './queue-consumer';
export type { ProvisionedPollers } from './provisioned-pollers';
export type { OnFailureDestination, StreamConsumerProps } from './stream-consumer';
export { tableDefaults } from './table-defaults';
export { grantPublishToEncryptedTopic } from './topic-publisher';
