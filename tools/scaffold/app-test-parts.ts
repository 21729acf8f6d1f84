/**
 * What differs between the tests `eo new consumer` writes into a team's app: how each source
 * delivers a batch (`delivered(...)`, as Lambda would), and per pattern the duplicate and poison
 * scenarios on recording clients, which need no engines. A versioned upsert's duplicate needs the
 * table's condition, so its clients answer as DynamoDB would for putIfNewer's conditional put.
 * `app-templates.ts` assembles the file.
 */
import { Source, variantOf, type StrategyRequest } from './options';

/** How a source's batch is built, and what its DLQ message keeps of the poison. */
export interface AppDelivery {
  /** `import type { ... } from 'aws-lambda'`. */
  readonly lambdaTypes: readonly string[];
  /** `delivered(...)` and anything it needs. */
  readonly builders: string;
  /** Assertions on `dead` (the DLQ message's failure context) beyond the common ones. */
  readonly original: string;
}

/** One pattern's scenarios; `{{answer}}` feeds `recordingClients`. */
export interface AppScenarios {
  readonly imports: readonly string[];
  /** Names the test imports from `effectively-once/runtime` (types as `type X`). @default - none */
  readonly runtimeImports?: readonly string[];
  /** The variables `ENV` holds besides the consumer's name and DLQ. */
  readonly env: string;
  readonly helpers: string;
  readonly answer: string;
  /** Options of the handler besides its routes, environment and clients (the SQL pattern's session). @default - none */
  readonly handlerOptions?: string;
  readonly duplicate: { readonly title: string; readonly setup: string; readonly batch: string; readonly expect: string };
  readonly poison: { readonly setup: string; readonly batch: string; readonly expect: string; readonly error: string };
}

export function appDelivery(source: Source): AppDelivery {
  if (source === Source.SQS) return { lambdaTypes: ['SQSEvent', 'SQSRecord'], builders: SQS_DELIVERY, original: 'expect(dead?.original).toMatchObject({ body: poison });' };
  if (source === Source.KINESIS) {
    return { lambdaTypes: ['KinesisStreamEvent', 'KinesisStreamRecord'], builders: KINESIS_DELIVERY, original: "expect(Buffer.from(dead?.original.body, 'base64').toString('utf8')).toBe(poison);" };
  }
  return { lambdaTypes: ['DynamoDBRecord', 'DynamoDBStreamEvent'], builders: STREAM_DELIVERY, original: '// The original is the change as the stream holds it, so that triage sees the item as written.\nexpect(JSON.parse(dead?.original.body)).toMatchObject({ Keys: poison.dynamodb?.Keys });' };
}

const SQS_DELIVERY = `/** SQS messages as Lambda delivers them, first receive. */
function delivered(...bodies: string[]): SQSEvent {
  const record = (body: string, index: number): SQSRecord => ({
    messageId: \`m-\${index}\`,
    receiptHandle: \`r-\${index}\`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:{{name}}',
    awsRegion: 'eu-west-1',
  });
  return { Records: bodies.map(record) };
}`;

const KINESIS_DELIVERY = `/** Kinesis records as Lambda delivers them: the data base64-encoded, in sequence. */
function delivered(...bodies: string[]): KinesisStreamEvent {
  const record = (body: string, index: number): KinesisStreamRecord => ({
    kinesis: { kinesisSchemaVersion: '1.0', partitionKey: \`key-\${index}\`, sequenceNumber: String(49_000_000 + index), data: Buffer.from(body, 'utf8').toString('base64'), approximateArrivalTimestamp: 0 },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: \`shardId-000000000000:\${49_000_000 + index}\`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::123456789012:role/{{name}}',
    awsRegion: 'eu-west-1',
    eventSourceARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/{{name}}',
  });
  return { Records: bodies.map(record) };
}`;

const STREAM_DELIVERY = `let sequence = 0;

/** A change to a source item (strings and numbers) as the stream delivers it; each call is a new stream record. */
function change(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', item: Record<string, string | number>): DynamoDBRecord {
  sequence += 1;
  const image = Object.fromEntries(Object.entries(item).map(([name, value]) => [name, typeof value === 'number' ? { N: String(value) } : { S: value }]));
  return {
    eventID: \`change-\${sequence}\`,
    eventName,
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    awsRegion: 'eu-west-1',
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:123456789012:table/{{name}}-source/stream/2026-01-01T00:00:00.000',
    dynamodb: {
      Keys: { pk: { S: String(item.pk) } },
      ...(eventName === 'REMOVE' ? { OldImage: image } : { NewImage: image }),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

function delivered(...Records: DynamoDBRecord[]): DynamoDBStreamEvent {
  return { Records };
}`;

/** The scenarios for a request's pattern and source (the SQL pattern's: ./app-sql-test-parts.ts). */
export function appScenarios(request: StrategyRequest): AppScenarios {
  return variantOf(request, { counter: [envelopeCounter, streamCounter], upsert: [envelopeUpsert, streamUpsert], external: [envelopeExternal, streamExternal] });
}

/** Each event of a batch as a message body. */
export const BODIES = '.map((event) => JSON.stringify(event))';
/** A body that is no envelope: its eventId is a number. */
export const ENVELOPE_POISON = "const poison = '{\"eventId\": 42}';";

const COMMITTED = `/** The transactions' actions: the dedup puts' ids, and the increments by counter item and attribute. */
function committed(sent: readonly Sent[]): { dedupIds: string[]; increments: Record<string, Record<string, number>> } {
  const actions = sent.filter((each) => each.command === 'TransactWriteItemsCommand').flatMap((each) => each.input.TransactItems);
  const dedupIds = actions.filter((action) => action.Put?.TableName === ENV.IDEMPOTENCY_TABLE).map((action) => action.Put.Item.id.S).sort();
  const increments: Record<string, Record<string, number>> = {};
  for (const { Update } of actions.filter((action) => action.Update?.TableName === ENV.COUNTERS_TABLE)) {
    const counts = (increments[Update.Key.pk.S] ??= {});
    for (const [, name, value] of (Update.UpdateExpression as string).matchAll(/(#\\w+) (:\\w+)/g)) {
      const attribute = Update.ExpressionAttributeNames[name as string];
      counts[attribute] = (counts[attribute] ?? 0) + Number(Update.ExpressionAttributeValues[value as string].N);
    }
  }
  return { dedupIds, increments };
}`;

const COUNTER_ENV = "IDEMPOTENCY_TABLE: 'idempotency', COUNTERS_TABLE: 'counters'";

function envelopeCounter(): AppScenarios {
  return {
    imports: [],
    env: COUNTER_ENV,
    helpers: `/** An event as the producer publishes it: the same key and id always give the same eventId. */
function counted(key: string, id: string) {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${key}:\${id}\`, source: 'test', payload: { key } });
}

${COMMITTED}`,
    answer: '',
    duplicate: {
      title: 'a producer retry in the batch is counted once',
      setup: "const [first, second] = [counted('home', 'view-1'), counted('home', 'view-2')];",
      batch: `delivered(...[first, first, second]${BODIES})`,
      expect: "expect(committed(sent)).toEqual({ dedupIds: [first, second].map((event) => `${CONSUMER_NAME}#${event.eventId}`).sort(), increments: { home: { count: 2 } } });",
    },
    poison: { setup: ENVELOPE_POISON, batch: "delivered(JSON.stringify(counted('pricing', 'view-1')), poison)", expect: 'expect(committed(sent).increments).toEqual({ pricing: { count: 1 } });', error: 'InvalidEnvelopeError' },
  };
}

function streamCounter(): AppScenarios {
  return {
    imports: [],
    env: COUNTER_ENV,
    helpers: COMMITTED,
    answer: '',
    duplicate: {
      title: 'a change delivered twice in the batch is counted once',
      setup: "const [first, second] = [change('INSERT', { pk: 'item-1', category: 'books' }), change('INSERT', { pk: 'item-2', category: 'books' })];",
      batch: "delivered(first, first, second, change('MODIFY', { pk: 'item-1', category: 'books', title: 'Second edition' }), change('REMOVE', { pk: 'item-2', category: 'books' }))",
      expect: "expect(committed(sent)).toMatchObject({ dedupIds: expect.arrayContaining([`${CONSUMER_NAME}#${first.eventID}`]), increments: { 'category#books': { inserted: 2, modified: 1, removed: 1 } } });",
    },
    poison: { setup: "const poison = change('INSERT', { pk: 'item-4' });", batch: "delivered(change('INSERT', { pk: 'item-3', category: 'games' }), poison)", expect: "expect(committed(sent).increments).toEqual({ 'category#games': { inserted: 1 } });", error: 'SchemaViolationError' },
  };
}

const PROJECTION_TABLE = `/**
 * The projection table as putIfNewer meets it in DynamoDB: per pk, the item of the highest
 * version; a put of an older or equal version fails its condition.
 */
function projectionTable() {
  const items = new Map<string, Record<string, any>>();
  const answer = (sent: Sent) => {
    if (sent.command !== 'PutItemCommand' || sent.input.TableName !== ENV.PROJECTION_TABLE) return {};
    const item = sent.input.Item;
    const stored = items.get(item.pk.S);
    if (stored && Number(stored.version.N) >= Number(item.version.N)) throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    items.set(item.pk.S, item);
    return {};
  };
  return { answer, item: (pk: string) => items.get(pk) };
}`;

const UPSERT_IMPORTS = ["import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';"];
const UPSERT_ENV = "PROJECTION_TABLE: 'projection'";
/** The batch delivered again. */
export const AGAIN = 'expect((await handlerOn(clients)(batch)).batchItemFailures).toEqual([]);';
const PUTS = (count: number): string => `expect(sent.filter((each) => each.command === 'PutItemCommand')).toHaveLength(${count});`;

function envelopeUpsert(): AppScenarios {
  return {
    imports: UPSERT_IMPORTS,
    env: UPSERT_ENV,
    helpers: `${PROJECTION_TABLE}

/** One version of an item, as the producer publishes it: one eventId per (id, version). */
function versioned(id: string, version: number, status: string) {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${id}:\${version}\`, source: 'test', payload: { id, version, data: { status } } });
}`,
    answer: 'projection.answer',
    duplicate: {
      title: 'out of order, with a producer retry, delivered twice: the projection ends at the newest version',
      setup: "const projection = projectionTable();\nconst [v1, v2, v3] = [versioned('o-1', 1, 'CREATED'), versioned('o-1', 2, 'PAID'), versioned('o-1', 3, 'SHIPPED')];",
      batch: `delivered(...[v1, v3, v2, v3]${BODIES})`,
      expect: `// A crash before the acknowledgement: Lambda delivers the same batch again, and nothing changes.\n${AGAIN}\n// Each delivery puts each event once: the producer retry is dropped from the batch.\n${PUTS(6)}\nexpect(projection.item('o-1')).toMatchObject({ version: { N: '3' }, data: { M: { status: { S: 'SHIPPED' } } }, eventId: { S: v3.eventId } });`,
    },
    poison: {
      setup: `const projection = projectionTable();\n${ENVELOPE_POISON}`,
      batch: "delivered(JSON.stringify(versioned('o-2', 1, 'CREATED')), poison)",
      expect: "expect(projection.item('o-2')).toMatchObject({ version: { N: '1' } });",
      error: 'InvalidEnvelopeError',
    },
  };
}

function streamUpsert(): AppScenarios {
  return {
    imports: UPSERT_IMPORTS,
    env: UPSERT_ENV,
    helpers: PROJECTION_TABLE,
    answer: 'projection.answer',
    duplicate: {
      title: 'the changes delivered twice: the projection ends at the newest version',
      setup: 'const projection = projectionTable();',
      batch: "delivered(change('INSERT', { pk: 'item-1', version: 1, status: 'CREATED' }), change('MODIFY', { pk: 'item-1', version: 2, status: 'PAID' }))",
      expect: `// The second delivery replays version 1 after version 2: it must change nothing.\n${AGAIN}\n${PUTS(4)}\nexpect(projection.item('item-1')).toMatchObject({ version: { N: '2' }, status: { S: 'PAID' } });`,
    },
    poison: {
      setup: "const projection = projectionTable();\nconst poison = change('INSERT', { pk: 'item-3', version: 'two', status: 'PAID' });",
      batch: "delivered(change('INSERT', { pk: 'item-2', version: 1, status: 'CREATED' }), poison)",
      expect: "expect(projection.item('item-2')).toMatchObject({ version: { N: '1' } });\nexpect(projection.item('item-3')).toBeUndefined();",
      error: 'SchemaViolationError',
    },
  };
}

const PUBLISHED = `/** SNS's answer to a publish: its message id, which Powertools keeps as the effect's result. */
function snsAnswer(sent: Sent): Record<string, unknown> {
  return sent.command === 'PublishCommand' ? { MessageId: \`message-\${sent.input.MessageAttributes.eventId.StringValue}\` } : {};
}

/** What was published to the topic, in eventId order. */
function published(sent: readonly Sent[]): Record<string, unknown>[] {
  return sent.filter((each) => each.command === 'PublishCommand').map((each) => JSON.parse(each.input.Message)).sort(byEventId);
}

function byEventId(a: { eventId?: unknown }, b: { eventId?: unknown }): number {
  return String(a.eventId).localeCompare(String(b.eventId));
}`;

const EXTERNAL_ENV = "IDEMPOTENCY_TABLE: 'idempotency', TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:{{name}}'";

function envelopeExternal(): AppScenarios {
  return {
    imports: [],
    env: EXTERNAL_ENV,
    helpers: `/** An event as the producer publishes it: the same recipient and message give the same eventId. */
function notice(recipient: string, message: string) {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${recipient}:\${message}\`, source: 'test', payload: { recipient, message } });
}

${PUBLISHED}`,
    answer: 'snsAnswer',
    duplicate: {
      title: 'a producer retry in the batch is published once',
      setup: "const [first, second] = [notice('ann', 'Your order has shipped'), notice('bob', 'Your order has shipped')];",
      batch: `delivered(...[first, first, second]${BODIES})`,
      expect: 'expect(published(sent)).toEqual([first, second].map((event) => ({ eventId: event.eventId, ...event.payload })).sort(byEventId));',
    },
    poison: {
      setup: `const valid = notice('cy', 'Welcome');\n${ENVELOPE_POISON}`,
      batch: 'delivered(JSON.stringify(valid), poison)',
      expect: 'expect(published(sent)).toEqual([{ eventId: valid.eventId, ...valid.payload }]);',
      error: 'InvalidEnvelopeError',
    },
  };
}

function streamExternal(): AppScenarios {
  return {
    imports: [],
    env: EXTERNAL_ENV,
    helpers: PUBLISHED,
    answer: 'snsAnswer',
    duplicate: {
      title: 'an insert delivered twice in the batch is published once, and a modification not at all',
      setup: "const [first, second] = [change('INSERT', { pk: 'item-1', message: 'hello' }), change('INSERT', { pk: 'item-2', message: 'bye' })];",
      batch: "delivered(first, first, second, change('MODIFY', { pk: 'item-1', message: 'hello again' }))",
      expect: "expect(published(sent)).toEqual([\n  { eventId: first.eventID, pk: 'item-1', message: 'hello' },\n  { eventId: second.eventID, pk: 'item-2', message: 'bye' },\n].sort(byEventId));",
    },
    poison: {
      setup: "const valid = change('INSERT', { pk: 'item-3', message: 'hi' });\nconst poison = change('INSERT', { pk: 'item-4' });",
      batch: 'delivered(valid, poison)',
      expect: "expect(published(sent)).toEqual([{ eventId: valid.eventID, pk: 'item-3', message: 'hi' }]);",
      error: 'SchemaViolationError',
    },
  };
}

