/**
 * What the DLQ operations work on: the stack's dead-letter queues and what feeds them, resolved
 * either from a deployed stack (CloudFormation) or from the local stack's state file, and one
 * client per service, pointed at AWS or at the local engines.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { EnvelopeOptions } from '../../lambdas/runtime/decoding/envelope-decoders';

/** The clients the operations use; AWS's or the local engines'. */
export interface DlqClients {
  readonly sqs: SQSClient;
  readonly kinesis: KinesisClient;
  readonly dynamodb: DynamoDBClient;
  readonly dynamodbStreams: DynamoDBStreamsClient;
  /** Reads and deletes the objects of failure archives (`onFailure: 's3'`). */
  readonly s3: S3Client;
  /** Invokes a table stream's consumer with the records it failed on (a DynamoDB Streams redrive). */
  readonly lambda: LambdaClient;
  /**
   * Reads a SQL consumer's dedup rows through the Data API (`dlq inspect`), with `maxAttempts: 1`
   * as `DataApiSession` requires. @default - none: SQL dedup rows are not looked up
   */
  readonly rdsData?: RDSDataClient;
  /** Put in the Lambda-shaped records read back from streams. */
  readonly region: string;
}

/**
 * How a queue feeds a DLQ: `redrive` when SQS moves messages there after `maxReceiveCount`
 * (the source is a queue), `on-failure` when a stream mapping sends its on-failure records there
 * (the source is a Kinesis stream or a table's stream), `runtime` when only the consumer's runtime
 * sends its failures there (a stream consumer whose mapping keeps its failures in an archive),
 * `schedule` when an EventBridge Scheduler schedule sends the target calls it gave up on there
 * (the source is the schedule: `SqlEffectDatabase`'s expiry; nothing to redrive to, as the
 * schedule's next run does the work).
 */
export type DlqRole = 'redrive' | 'on-failure' | 'runtime' | 'schedule';

export interface DlqSource {
  readonly role: DlqRole;
  /** The source queue's, stream's or schedule's ARN (a schedule's logical id where its ARN does not resolve). */
  readonly arn: string;
}

export interface QueueRef {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
}

/**
 * A failure archive (`onFailure: 's3'`): the bucket a stream mapping writes each batch it gives up
 * on to, whole. Its index queue, which EventBridge announces each object to and the alarm
 * watches, stands for it as a DLQ; the bucket is what holds the failures.
 */
export interface ArchiveRef {
  readonly bucket: string;
}

/** A dead-letter queue of the stack, with every source that feeds it. */
export interface DlqInfo extends QueueRef {
  readonly sources: readonly DlqSource[];
  /** Set when the queue is a failure archive's index: the failures are the bucket's objects. */
  readonly archive?: ArchiveRef;
}

export interface StreamRef {
  readonly name: string;
  readonly arn: string;
  readonly retentionHours: number;
}

export interface TableRef {
  readonly name: string;
  readonly arn: string;
  readonly streamArn?: string;
}

/**
 * How long a consumer keeps the dedup records of one source's events: a copy of an event that
 * `dlq redrive` republishes to that source must not outlive them (dedup-window.ts). And where it
 * keeps them, and how it reads an event's id: `dlq inspect` looks a DLQ message's event up there
 * (applied-events.ts).
 */
export interface ConsumerWindow {
  /**
   * The consumer's name (`CONSUMER_NAME`), or its function's when it sets none; `<name>@g<n>` for
   * a generation from 2 (`CONSUMER_GENERATION`): the prefix of its dedup keys.
   */
  readonly consumer: string;
  /** The queue or stream one of its function's mappings reads. */
  readonly sourceArn: string;
  /** Its function's `DEDUP_TTL_SECONDS`. */
  readonly dedupTtlSeconds: number;
  /** The table its function's `IDEMPOTENCY_TABLE` names (`DEDUP_TABLE_VARIABLE`); absent when it names none. */
  readonly dedupTable?: string;
  /** The envelope its function's `EVENT_ENVELOPE` and `EVENT_ID_PATH` declare; absent: our own. */
  readonly envelope?: EnvelopeOptions;
  /** Where a SQL consumer keeps its dedup rows (its function's `SQL_DEDUP_TABLE`); absent for any other. */
  readonly sqlDedup?: SqlDedupStore;
}

/**
 * A SQL consumer's dedup rows, reached through the RDS Data API, as `SqlEffectDatabase.connect`
 * sets them on its function (aws/consumer-env.ts, `SQL_ENV`). A value the template does not
 * resolve (a new cluster's secret, on AWS) is read from the function's configuration when needed.
 */
export interface SqlDedupStore {
  /** The function whose environment names them. */
  readonly functionName: string;
  /** `SQL_DEDUP_TABLE`: `name` or `schema.name`. */
  readonly table: string;
  /** `DATA_API_RESOURCE_ARN`, the cluster. @default - unresolved: read from the function */
  readonly resourceArn?: string;
  /** `DATA_API_SECRET_ARN`. @default - unresolved: read from the function */
  readonly secretArn?: string;
  /** `DATA_API_DATABASE`. @default - unresolved: read from the function */
  readonly database?: string;
}

/**
 * A function of the stack and a source one of its mappings reads: whom a DynamoDB Streams redrive
 * may invoke, and with batches of what size. Only these: a redrive never invokes a function the
 * stack does not wire to the failed record's source.
 */
export interface ConsumerFunction {
  /** The function's name. */
  readonly functionName: string;
  /**
   * The consumer's name (`CONSUMER_NAME`), or the function's when it sets none; `<name>@g<n>` for
   * a generation from 2: what its DLQ messages and dedup keys name it.
   */
  readonly consumer: string;
  /** The consumer's name without its generation. @default - `consumer` */
  readonly name?: string;
  /** `CONSUMER_GENERATION`. @default 1 */
  readonly generation?: number;
  /** Whether the mapping polls its source; off for a rebuilt generation that `eo replay` fills. @default true */
  readonly mappingEnabled?: boolean;
  /** The function's environment variables whose values resolve (tables' names, among them). @default - none known */
  readonly environment?: Readonly<Record<string, string>>;
  readonly sourceArn: string;
  /** The mapping's batch size. @default - the stream default, 100 */
  readonly batchSize?: number;
}

/** The parts of a stack the DLQ operations need, wherever it runs. */
export interface StackTopology {
  readonly stackName: string;
  readonly region: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly deadLetterQueues: readonly DlqInfo[];
  /** Every queue of the stack, to find a source queue's URL from its ARN. */
  readonly queues: readonly QueueRef[];
  readonly streams: readonly StreamRef[];
  readonly tables: readonly TableRef[];
  /** The consumers' dedup TTLs by source; a source no consumer of the stack declares one for is redriven unchecked. */
  readonly consumerWindows: readonly ConsumerWindow[];
  readonly consumerFunctions: readonly ConsumerFunction[];
}

/** What every operation is given: where the stack is and how to talk to it. */
export interface DlqContext {
  readonly clients: DlqClients;
  readonly topology: StackTopology;
}
