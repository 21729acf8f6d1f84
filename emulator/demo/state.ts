/**
 * Reads the final state back from the engines: counters, orders, notifications sent, what the
 * DLQs hold, which events committed (their dedup records), and the alarm notifications.
 */
import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isFailureEnvelope, type FailureEnvelope } from '../../aws/dlq-format';
import { peekAll } from '../../aws/sqs/peek';
import { quotedSqlIdentifier } from '../../aws/sql-dedup-table';
import type { DeadLetterQueue } from '../stack/outputs';
import { unshardedValue } from '../../lambdas/runtime';
import type { PostgresConnection } from '../engines/postgres';
import type { LedgerAccount, PaymentRow } from './expected';

/** Lambda's on-failure record for a stream batch: a pointer to records, not the records. */
export interface OnFailurePointer {
  readonly condition: string;
  readonly shardId: string;
  readonly startSequenceNumber: string;
  readonly endSequenceNumber: string;
  readonly batchSize: number;
  readonly streamArn: string;
}

export interface DlqContents {
  readonly queueName: string;
  readonly failures: FailureEnvelope[];
  readonly pointers: OnFailurePointer[];
  /** Bodies of the messages that are neither: SQS moved them here with no context. */
  readonly bare: string[];
}

/** How many messages a DLQ holds, of every kind. */
export function dlqDepth(contents: DlqContents): number {
  return contents.failures.length + contents.pointers.length + contents.bare.length;
}

export interface FinalState {
  readonly counters: Record<string, number>;
  readonly orders: Record<string, { status: string; version: number }>;
  /** accountId -> its history and balance, as the account ledger left them. */
  readonly ledger: Record<string, LedgerAccount>;
  /** invoiceId -> paid cents, and paymentId -> its row, as the invoice payments left them in PostgreSQL. */
  readonly invoices: Record<string, number>;
  readonly payments: Record<string, PaymentRow>;
  readonly notifications: { orderId: string; eventId: string }[];
  readonly dlqs: DlqContents[];
  /** The dedup keys (`<consumer>#<eventId>`) of the events committed: the DynamoDB records' and the SQL dedup rows'. */
  readonly committedIds: ReadonlySet<string>;
  readonly alarmNotifications: { state: string; alarmName: string }[];
}

export interface StateSources {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly countersTable: string;
  readonly ordersTable: string;
  readonly ledgerTable: string;
  readonly idempotencyTable: string;
  readonly notificationsInboxUrl: string;
  readonly alarmsInboxUrl: string;
  readonly deadLetterQueues: readonly DeadLetterQueue[];
  /** The SQL effects' database, when the stack has one. @default - no SQL effects read */
  readonly sql?: SqlStateSource;
}

/** Where the SQL consumer's effects and dedup rows are. */
export interface SqlStateSource {
  readonly connection: PostgresConnection;
  readonly database: string;
  readonly dedupTable: string;
}

/** What PostgreSQL holds of the run: the invoice payments' tables and the dedup rows. */
interface SqlState {
  readonly invoices: Record<string, number>;
  readonly payments: Record<string, PaymentRow>;
  readonly committed: readonly string[];
}

export async function readState(sources: StateSources): Promise<FinalState> {
  const [counters, orders, ledger, committed, notifications, alarms, dlqs, sql] = await Promise.all([
    scanAll(sources.dynamodb, sources.countersTable),
    scanAll(sources.dynamodb, sources.ordersTable),
    scanAll(sources.dynamodb, sources.ledgerTable),
    scanAll(sources.dynamodb, sources.idempotencyTable),
    snsMessages(sources.sqs, sources.notificationsInboxUrl),
    snsMessages(sources.sqs, sources.alarmsInboxUrl),
    Promise.all(sources.deadLetterQueues.map((dlq) => readDlq(sources.sqs, dlq))),
    sources.sql ? readSql(sources.sql) : { invoices: {}, payments: {}, committed: [] },
  ]);
  return {
    counters: countersOf(counters),
    orders: Object.fromEntries(orders.map((item) => [String(item.orderId), { status: String(item.status), version: Number(item.version) }])),
    ledger: Object.fromEntries(ledger.map((item) => [String(item.pk).replace(/^account#/, ''), { history: (item.history as number[]).map(Number), balance: Number(item.balance) }])),
    invoices: sql.invoices,
    payments: sql.payments,
    notifications: notifications.map((message) => ({ orderId: String(message.orderId), eventId: String(message.notificationId) })),
    dlqs,
    committedIds: new Set([...committed.map((item) => String(item.id)), ...sql.committed]),
    alarmNotifications: alarms.map((message) => ({ state: String(message.NewStateValue), alarmName: String(message.AlarmName) })),
  };
}

/**
 * Reads the invoice payments' tables and the dedup keys from PostgreSQL. `pg` is loaded here, not
 * at import, as local mode loads it only for a stack with a SQL database.
 */
async function readSql(source: SqlStateSource): Promise<SqlState> {
  const { withPostgresSession } = await import('../engines/postgres-session');
  return withPostgresSession({ ...source.connection, database: source.database }, async (session) => {
    const invoices = await session.query<{ invoice_id: string; paid_cents: string }>('SELECT invoice_id, paid_cents FROM invoices');
    const payments = await session.query<{ payment_id: string; invoice_id: string; amount_cents: string }>('SELECT payment_id, invoice_id, amount_cents FROM payments');
    const committed = await session.query<{ dedup_key: string }>(`SELECT dedup_key FROM ${quotedSqlIdentifier(source.dedupTable)}`);
    return {
      invoices: Object.fromEntries(invoices.rows.map((row) => [row.invoice_id, Number(row.paid_cents)])),
      payments: Object.fromEntries(payments.rows.map((row) => [row.payment_id, { invoiceId: row.invoice_id, amountCents: Number(row.amount_cents) }])),
      committed: committed.rows.map((row) => row.dedup_key),
    };
  });
}

/** The counters' views, each sharded counter's shard items summed into it. */
function countersOf(items: readonly Record<string, unknown>[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const item of items) {
    const key = unshardedValue(String(item.pk));
    counters[key] = (counters[key] ?? 0) + Number(item.views);
  }
  return counters;
}

async function scanAll(dynamodb: DynamoDBClient, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, never> | undefined;
  do {
    const page = await dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []).map((item) => unmarshall(item)));
    startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
  } while (startKey);
  return items;
}

/** The `Message` of each SNS envelope delivered to an inbox queue, parsed as JSON. */
async function snsMessages(sqs: SQSClient, inboxUrl: string): Promise<Record<string, unknown>[]> {
  const messages = await peekAll(sqs, inboxUrl);
  return messages.map((message) => {
    const envelope = JSON.parse(message.Body ?? '{}') as { Message?: string };
    return JSON.parse(envelope.Message ?? message.Body ?? '{}') as Record<string, unknown>;
  });
}

async function readDlq(sqs: SQSClient, dlq: DeadLetterQueue): Promise<DlqContents> {
  const contents: DlqContents = { queueName: dlq.queue.name, failures: [], pointers: [], bare: [] };
  for (const message of await peekAll(sqs, dlq.queue.url)) {
    const body = parseJson(message.Body ?? '');
    const pointer = onFailurePointer(body);
    if (isFailureEnvelope(body)) contents.failures.push(body);
    else if (pointer) contents.pointers.push(pointer);
    else contents.bare.push(message.Body ?? '');
  }
  return contents;
}

/** Parses Lambda's on-failure record of a Kinesis or DynamoDB Streams batch. */
export function onFailurePointer(body: unknown): OnFailurePointer | undefined {
  const record = body as { requestContext?: { condition?: string }; KinesisBatchInfo?: Omit<OnFailurePointer, 'condition'>; DDBStreamBatchInfo?: Omit<OnFailurePointer, 'condition'> } | undefined;
  const info = record?.KinesisBatchInfo ?? record?.DDBStreamBatchInfo;
  return info ? { ...info, condition: record?.requestContext?.condition ?? 'unknown' } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
