/**
 * The figures of the `aws` latency profile, and only them: what one request from a function to a
 * service in its own region takes, client-observed, on a kept-alive connection. Each figure names
 * where it comes from, when, and whether AWS documents it or a third party measured it. AWS
 * publishes no p50 or p99 for any of these calls ("single-digit milliseconds" is DynamoDB's whole
 * statement), so every median and p99 below is an assumption fitted to what the sources say, and
 * the notes say how. Change a figure here and nowhere else: the model (./latency.ts) and the docs
 * read this file.
 */

/** Where a figure comes from. */
export interface LatencySource {
  readonly title: string;
  readonly url: string;
  /** The source's date when it has one (a measurement, a post); for AWS's living pages, the day we read them. */
  readonly date: string;
  /** True when AWS documents the statement; false when a third party measured it. */
  readonly documented: boolean;
}

/** One operation's latency: a log-normal through its median and its p99. */
export interface LatencyFigure {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** TransactWriteItems and TransactGetItems: added to the median and, in proportion, to the p99, per action. @default 0 */
  readonly perActionMs?: number;
  readonly source: LatencySource;
  /** How the median and the p99 follow from the source. */
  readonly note: string;
}

const READ_ON = '2026-12-02';

const DYNAMODB_SINGLE_DIGIT: LatencySource = {
  title: 'Amazon DynamoDB Developer Guide, "What is Amazon DynamoDB?", Characteristics: "Single-digit millisecond performance at any scale"',
  url: 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/dynamodb-dg.pdf',
  date: READ_ON,
  documented: true,
};

const DYNAMODB_HIGH_LATENCY: LatencySource = {
  title: 'AWS re:Post Knowledge Center, DynamoDB high latency (read in its Japanese edition): a single-digit ms average for atomic operations such as GetItem and PutItem, as SuccessfulRequestLatency measures it, service side only',
  url: 'https://repost.aws/ja/knowledge-center/dynamodb-high-latency',
  date: READ_ON,
  documented: true,
};

const MESSAGING_LATENCY_COMPARED: LatencySource = {
  title: 'Bite-Sized Serverless, "Serverless Messaging: Latency Compared" (eu-west-1, 1,024 messages per service)',
  url: 'https://bitesizedserverless.com/bite/serverless-messaging-latency-compared/',
  date: '2022-09-05',
  documented: false,
};

const KINESIS_CONSUMERS: LatencySource = {
  title: 'Amazon Kinesis Data Streams Developer Guide, "Develop enhanced fan-out consumers" and "Improve low-latency processing" (propagation delay: about 200 ms shared, 70 ms enhanced fan-out; records readable as soon as written)',
  url: 'https://docs.aws.amazon.com/streams/latest/dev/enhanced-consumers.html',
  date: READ_ON,
  documented: true,
};

/**
 * The RDS Data API has no published latency: neither its user guide nor AWS's announcement of it for
 * Aurora Serverless v2 and provisioned clusters gives a figure (searched on the day below). The
 * source names that announcement as the page a figure would be in, and `documented: false` says
 * that the figure is ours.
 */
const DATA_API_NO_FIGURE: LatencySource = {
  title: 'AWS Database Blog, "Introducing the Data API for Amazon Aurora Serverless v2 and Amazon Aurora provisioned clusters" (no latency figure in it, nor in the Aurora User Guide\'s Data API chapter)',
  url: 'https://aws.amazon.com/blogs/database/introducing-the-data-api-for-amazon-aurora-serverless-v2-and-amazon-aurora-provisioned-clusters/',
  date: READ_ON,
  documented: false,
};

/**
 * ASSUMED, not measured and not published: one Data API call (BeginTransaction, ExecuteStatement,
 * BatchExecuteStatement, CommitTransaction, RollbackTransaction) takes a median of 10 ms and a p99
 * of 30 ms. Why these: a call is an HTTPS request to a regional endpoint, as a DynamoDB write is (5
 * ms here), and then a second hop, from the Data API's fleet to the cluster's writer over a pooled
 * connection, where PostgreSQL runs the statement: two hops where DynamoDB has one, so twice its
 * median, with the same p99 ratio (3x). A commit also waits Aurora's storage quorum; that is taken
 * to fit in the same figure. The bench prints it beside the SQL part's figures as an assumption.
 */
export const DATA_API_ASSUMED_CALL: LatencyFigure = {
  medianMs: 10,
  p99Ms: 30,
  source: DATA_API_NO_FIGURE,
  note: 'assumed: two hops (HTTPS to the Data API, then its pooled connection to the writer), twice a DynamoDB write\'s median, p99 three times the median; AWS publishes no figure',
};

const DYNAMODB_POINT = 'AWS documents single-digit ms; we take the median in that range and a p99 three times it (our assumption, not AWS\'s)';

/** The operations the profile names; any other request gets {@link DEFAULT_LATENCY}. */
export const AWS_LATENCY_FIGURES = {
  'dynamodb:GetItem': { medianMs: 4, p99Ms: 12, source: DYNAMODB_HIGH_LATENCY, note: DYNAMODB_POINT },
  'dynamodb:PutItem': { medianMs: 5, p99Ms: 15, source: DYNAMODB_HIGH_LATENCY, note: DYNAMODB_POINT },
  'dynamodb:UpdateItem': { medianMs: 5, p99Ms: 15, source: DYNAMODB_HIGH_LATENCY, note: DYNAMODB_POINT },
  'dynamodb:DeleteItem': { medianMs: 5, p99Ms: 15, source: DYNAMODB_HIGH_LATENCY, note: DYNAMODB_POINT },
  'dynamodb:Query': { medianMs: 6, p99Ms: 20, source: DYNAMODB_SINGLE_DIGIT, note: 'a small page; AWS says a query\'s latency grows with its result, which this ignores' },
  'dynamodb:BatchGetItem': { medianMs: 7, p99Ms: 22, source: DYNAMODB_SINGLE_DIGIT, note: 'up to 100 reads served in parallel: a point read\'s median plus the slowest of several (assumption)' },
  'dynamodb:BatchWriteItem': { medianMs: 9, p99Ms: 28, source: DYNAMODB_SINGLE_DIGIT, note: 'up to 25 writes served in parallel: a point write\'s median plus the slowest of several (assumption)' },
  'dynamodb:TransactWriteItems': {
    medianMs: 10,
    p99Ms: 30,
    perActionMs: 0.5,
    source: DYNAMODB_SINGLE_DIGIT,
    note: 'two phases (prepare, commit) over every item\'s partition: about two writes, plus 0.5 ms per action for the partitions it spans (assumption; AWS publishes no figure)',
  },
  'dynamodb:TransactGetItems': { medianMs: 8, p99Ms: 24, perActionMs: 0.3, source: DYNAMODB_SINGLE_DIGIT, note: 'as TransactWriteItems, one phase lighter (assumption)' },
  'sqs:SendMessage': { medianMs: 8, p99Ms: 40, source: MESSAGING_LATENCY_COMPARED, note: 'measured end to end (send, poll, receive): P50 16.2 ms, P99 105 ms; one call taken as about half of the median and under half the p99' },
  'sqs:SendMessageBatch': { medianMs: 10, p99Ms: 45, source: MESSAGING_LATENCY_COMPARED, note: 'as SendMessage, a little more for up to 10 entries (assumption)' },
  'sqs:ReceiveMessage': { medianMs: 8, p99Ms: 40, source: MESSAGING_LATENCY_COMPARED, note: 'as SendMessage; a long poll waits for its messages and never more than this on top (see ./latency.ts)' },
  'sqs:DeleteMessage': { medianMs: 6, p99Ms: 30, source: MESSAGING_LATENCY_COMPARED, note: 'a lighter call than a send (assumption)' },
  'sqs:DeleteMessageBatch': { medianMs: 7, p99Ms: 35, source: MESSAGING_LATENCY_COMPARED, note: 'as DeleteMessage, up to 10 entries (assumption)' },
  'sqs:ChangeMessageVisibility': { medianMs: 6, p99Ms: 30, source: MESSAGING_LATENCY_COMPARED, note: 'as DeleteMessage (assumption)' },
  'sqs:ChangeMessageVisibilityBatch': { medianMs: 7, p99Ms: 35, source: MESSAGING_LATENCY_COMPARED, note: 'as DeleteMessageBatch (assumption)' },
  'sns:Publish': { medianMs: 15, p99Ms: 60, source: MESSAGING_LATENCY_COMPARED, note: 'measured end to end to an async Lambda: P50 73 ms, P99 225 ms, most of it the delivery; the Publish call taken as about a fifth (assumption)' },
  'kinesis:PutRecord': { medianMs: 12, p99Ms: 45, source: KINESIS_CONSUMERS, note: 'AWS documents propagation (put to read), not the call; the call taken as a fraction of the 70 ms enhanced fan-out delay (assumption)' },
  'kinesis:PutRecords': { medianMs: 15, p99Ms: 55, source: KINESIS_CONSUMERS, note: 'as PutRecord, up to 500 records (assumption)' },
  'rds-data:BeginTransaction': DATA_API_ASSUMED_CALL,
  'rds-data:ExecuteStatement': DATA_API_ASSUMED_CALL,
  'rds-data:BatchExecuteStatement': DATA_API_ASSUMED_CALL,
  'rds-data:CommitTransaction': DATA_API_ASSUMED_CALL,
  'rds-data:RollbackTransaction': DATA_API_ASSUMED_CALL,
  'kinesis:GetRecords': { medianMs: 10, p99Ms: 40, source: KINESIS_CONSUMERS, note: 'records are readable as soon as written (AWS); the call itself assumed as PutRecord\'s' },
} as const satisfies Readonly<Record<string, LatencyFigure>>;

/** Every request the profile does not name: control-plane calls, streams, S3, Lambda's Invoke API. */
export const DEFAULT_LATENCY: LatencyFigure = {
  medianMs: 10,
  p99Ms: 40,
  source: MESSAGING_LATENCY_COMPARED,
  note: 'an in-region call of the same order as SQS\'s (assumption)',
};
