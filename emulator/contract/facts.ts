/**
 * What a rule needs to know beyond the request itself, which the proxy looks up (from the
 * template, or from the engine) and passes in: a queue's or topic's size limit, a table's key.
 */

/** Facts about the SQS queue the request names. */
export interface SqsFacts {
  /** The queue's `MaximumMessageSize` in bytes. @default SQS_LIMITS.maxMessageBytes (1 MiB) */
  readonly maximumMessageSize?: number;
  /** A FIFO queue (its URL ends in `.fifo`). @default false */
  readonly fifo?: boolean;
  /** A FIFO queue's `ContentBasedDeduplication`: then a message needs no deduplication id. @default false */
  readonly contentBasedDeduplication?: boolean;
}

/** Facts about the SNS topic the request names. */
export interface SnsFacts {
  /** The topic's `MaximumMessageSize` in bytes. @default SNS_LIMITS.defaultMaxMessageBytes (256 KiB) */
  readonly maximumMessageSize?: number;
}

/** Facts about the Kinesis stream the request names. */
export interface KinesisFacts {
  /** The stream's `MaxRecordSizeInKiB`. @default KINESIS_LIMITS.defaultMaxRecordKiB (1024) */
  readonly maxRecordSizeKiB?: number;
  /** A PutRecords request's limit in bytes. @default KINESIS_LIMITS.maxPutRecordsBytes (5 MiB) */
  readonly maxPutRecordsBytes?: number;
}

/** Facts about DynamoDB tables. */
export interface DynamoDbFacts {
  /**
   * The key attribute names of each table, by table name, e.g. `{ orders: ['pk', 'sk'] }`. A
   * `Put` names its item, not its key: without the schema its item cannot be told apart.
   */
  readonly keySchemas?: Readonly<Record<string, readonly string[]>>;
}

/** Everything a rule may need; each service's rules read their own part. */
export interface RequestFacts {
  readonly sqs?: SqsFacts;
  readonly sns?: SnsFacts;
  readonly kinesis?: KinesisFacts;
  readonly dynamodb?: DynamoDbFacts;
}
