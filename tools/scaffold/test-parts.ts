/**
 * What the generated test does per pattern: the resources the handler needs, the events (or, for
 * DynamoDB Streams, the writes) of the duplicate and the poison scenarios, and the exact effect
 * each must leave. `test-template.ts` puts them into the source's scenario.
 */
import { variantOf, type StrategyRequest } from './options';
import type { ImportSpec } from './render';

/** The pieces of a generated test that depend on the pattern. */
export interface TestParts {
  readonly imports: readonly ImportSpec[];
  /** Functions declared at the top: event builders, effect readers. */
  readonly helpers: string;
  /** `[name, promise]` pairs created in parallel by `setUp()`. */
  readonly resources: readonly (readonly [string, string])[];
  /** Config fields of `create<Name>(...)`. */
  readonly config: readonly string[];
  /** Fields `setUp()` returns besides the handler and the source. */
  readonly returns: readonly string[];
  /** Extra arguments to the handler (the Lambda context, for Powertools' lock). */
  readonly handlerArgs: string;
  /** Duplicate scenario: statements before delivery, the delivered batch, and the assertions. */
  readonly duplicate: { readonly setup: string; readonly batch?: string; readonly count?: number; readonly eventNames?: string; readonly expect: string };
  /** Poison scenario: the valid record beside the poison, and the assertions on its effect. */
  readonly poison: { readonly setup: string; readonly valid?: string; readonly pk?: string; readonly expect: string };
}

const HELPERS = '../../helpers';
const FIXTURES: string = `${HELPERS}/fixtures`;
const ENGINES: string = `${HELPERS}/engines`;

/** What a pattern's test sets up and hands the handler, whichever the source. */
export type Wiring = Pick<TestParts, 'resources' | 'config' | 'returns' | 'handlerArgs'>;

/** The pieces for a request (the SQL pattern's: ./sql-test-parts.ts). */
export function testParts(request: StrategyRequest): TestParts {
  return variantOf(request, { counter: [envelopeCounter, streamCounter], upsert: [envelopeUpsert, streamUpsert], external: [envelopeExternal, streamExternal] });
}

const COUNTER_WIRING: Wiring = {
  resources: [
    ['idempotency', 'idempotencyTable(clients.dynamodb)'],
    ['counters', "pkTable(clients.dynamodb, '{{name}}-counters')"],
  ],
  config: ['countersTable: counters.tableName,', 'idempotencyTable: idempotency,'],
  returns: ['counters: counters.tableName'],
  handlerArgs: '',
};
const COUNTER_IMPORTS: ImportSpec[] = [[FIXTURES, 'idempotencyTable'], [FIXTURES, 'pkTable'], ['@aws-sdk/client-dynamodb', 'ScanCommand'], ['@aws-sdk/util-dynamodb', 'unmarshall']];

function envelopeCounter(): TestParts {
  return {
    imports: [...COUNTER_IMPORTS, ['{{runtime}}', 'createEnvelope'], ['{{runtime}}', 'type Envelope']],
    helpers: `/** An event as the producer publishes it: the same key and id always give the same eventId. */
function counted(key: string, id: string): Envelope<{{Pascal}}Payload> {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${key}:\${id}\`, source: 'test', payload: { key }, occurredAt: OCCURRED_AT });
}

/** The counters, by key. */
async function countsOf(table: string): Promise<Record<string, number>> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Object.fromEntries(Items.map((item) => unmarshall(item)).map((item) => [item.pk as string, item.count as number]));
}`,
    ...COUNTER_WIRING,
    duplicate: {
      setup: `const first = counted('home', 'view-1');
const second = counted('home', 'view-2');`,
      batch: '[first, first, second]',
      count: 3,
      expect: 'expect(await countsOf(setup.counters)).toEqual({ home: 2 });',
    },
    poison: { setup: '', valid: "counted('pricing', 'view-1')", expect: 'expect(await countsOf(setup.counters)).toEqual({ pricing: 1 });' },
  };
}

function streamCounter(): TestParts {
  return {
    imports: COUNTER_IMPORTS,
    helpers: `/** The counters, by category: \`{ inserted, modified, removed }\`. */
async function countsOf(table: string): Promise<Record<string, Record<string, unknown>>> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Object.fromEntries(Items.map((item) => unmarshall(item)).map(({ pk, ...counts }) => [pk as string, counts]));
}`,
    ...COUNTER_WIRING,
    duplicate: {
      setup: `await put(setup.source, { pk: 'item-1', category: 'books' });
await put(setup.source, { pk: 'item-2', category: 'books' });
await put(setup.source, { pk: 'item-1', category: 'books', title: 'Second edition' });
await remove(setup.source, 'item-2');`,
      eventNames: "['INSERT', 'INSERT', 'MODIFY', 'REMOVE']",
      expect: "expect(await countsOf(setup.counters)).toEqual({ 'category#books': { inserted: 2, modified: 1, removed: 1 } });",
    },
    poison: {
      setup: `await put(setup.source, { pk: 'item-3', category: 'games' });
await put(setup.source, { pk: 'item-4' });`,
      pk: 'item-4',
      expect: "expect(await countsOf(setup.counters)).toEqual({ 'category#games': { inserted: 1 } });",
    },
  };
}

const UPSERT_WIRING: Wiring = {
  resources: [['projection', "pkTable(clients.dynamodb, '{{name}}-projection')"]],
  config: ['projectionTable: projection.tableName,'],
  returns: ['projection: projection.tableName'],
  handlerArgs: '',
};

function envelopeUpsert(): TestParts {
  return {
    imports: [[FIXTURES, 'itemByPk'], [FIXTURES, 'pkTable'], ['{{runtime}}', 'createEnvelope'], ['{{runtime}}', 'type Envelope']],
    helpers: `/** One version of an item, as the producer publishes it: one eventId per (id, version). */
function versioned(id: string, version: number, status: string): Envelope<{{Pascal}}Payload> {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${id}:\${version}\`, source: 'test', payload: { id, version, data: { status } }, occurredAt: OCCURRED_AT });
}`,
    ...UPSERT_WIRING,
    duplicate: {
      setup: `// Out of order, and version 3 twice: the projection must end at version 3.
const v1 = versioned('o-1', 1, 'CREATED');
const v2 = versioned('o-1', 2, 'PAID');
const v3 = versioned('o-1', 3, 'SHIPPED');`,
      batch: '[v1, v3, v2, v3]',
      count: 4,
      expect: "expect(await itemByPk(clients.dynamodb, setup.projection, 'o-1')).toMatchObject({ version: 3, data: { status: 'SHIPPED' }, eventId: v3.eventId });",
    },
    poison: {
      setup: '',
      valid: "versioned('o-2', 1, 'CREATED')",
      expect: "expect(await itemByPk(clients.dynamodb, setup.projection, 'o-2')).toMatchObject({ version: 1, data: { status: 'CREATED' } });",
    },
  };
}

function streamUpsert(): TestParts {
  return {
    imports: [[FIXTURES, 'itemByPk'], [FIXTURES, 'pkTable']],
    helpers: '',
    ...UPSERT_WIRING,
    duplicate: {
      setup: `await put(setup.source, { pk: 'item-1', version: 1, status: 'CREATED' });
await put(setup.source, { pk: 'item-1', version: 2, status: 'PAID' });`,
      eventNames: "['INSERT', 'MODIFY']",
      expect: "// The second delivery replays version 1 after version 2: it must change nothing.\nexpect(await itemByPk(clients.dynamodb, setup.projection, 'item-1')).toMatchObject({ version: 2, status: 'PAID' });",
    },
    poison: {
      setup: `await put(setup.source, { pk: 'item-2', version: 1, status: 'CREATED' });
await put(setup.source, { pk: 'item-3', version: 'two', status: 'PAID' });`,
      pk: 'item-3',
      expect: "expect(await itemByPk(clients.dynamodb, setup.projection, 'item-2')).toMatchObject({ version: 1, status: 'CREATED' });\nexpect(await itemByPk(clients.dynamodb, setup.projection, 'item-3')).toBeUndefined();",
    },
  };
}

const EXTERNAL_IMPORTS: ImportSpec[] = [
  [FIXTURES, 'idempotencyTable'],
  [ENGINES, 'createQueue'],
  [ENGINES, 'receiveAll'],
  [ENGINES, 'subscribeQueueToTopic'],
  [ENGINES, 'uniqueName'],
  [`${HELPERS}/events`, 'lambdaContext'],
  ['@aws-sdk/client-sns', 'CreateTopicCommand'],
];

const EXTERNAL_HELPERS = `/** A topic, with a queue subscribed to it that shows what was published. */
async function topicWithInbox(): Promise<{ topicArn: string; inboxUrl: string }> {
  const [{ TopicArn = '' }, inbox] = await Promise.all([
    clients.sns.send(new CreateTopicCommand({ Name: uniqueName('{{name}}') })),
    createQueue(clients.sqs, uniqueName('{{name}}-inbox')),
  ]);
  await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn, rawMessageDelivery: true });
  return { topicArn: TopicArn, inboxUrl: inbox.url };
}

/** What reached the topic, in eventId order. */
async function published(inboxUrl: string): Promise<{{Pascal}}Message[]> {
  const messages = await receiveAll(clients.sqs, inboxUrl, { max: 10, waitMs: 1_500 });
  return messages.map((message) => JSON.parse(message.Body ?? 'null') as {{Pascal}}Message).sort(byEventId);
}

function byEventId(a: { eventId: string }, b: { eventId: string }): number {
  return a.eventId.localeCompare(b.eventId);
}`;

const EXTERNAL_WIRING: Wiring = {
  resources: [
    ['idempotency', 'idempotencyTable(clients.dynamodb)'],
    ['topic', 'topicWithInbox()'],
  ],
  config: ['topicArn: topic.topicArn,', 'idempotencyTable: idempotency,'],
  returns: ['inboxUrl: topic.inboxUrl'],
  handlerArgs: ', lambdaContext()',
};

function envelopeExternal(): TestParts {
  return {
    imports: [...EXTERNAL_IMPORTS, ['{{runtime}}', 'createEnvelope'], ['{{runtime}}', 'type Envelope']],
    helpers: `/** An event as the producer publishes it: the same recipient and message give the same eventId. */
function notice(recipient: string, message: string): Envelope<{{Pascal}}Payload> {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${recipient}:\${message}\`, source: 'test', payload: { recipient, message }, occurredAt: OCCURRED_AT });
}

/** The message the consumer publishes for an event. */
function messageOf(event: Envelope<{{Pascal}}Payload>): {{Pascal}}Message {
  return { eventId: event.eventId, ...event.payload };
}

${EXTERNAL_HELPERS}`,
    ...EXTERNAL_WIRING,
    duplicate: {
      setup: `const first = notice('ann', 'Your order has shipped');
const second = notice('bob', 'Your order has shipped');`,
      batch: '[first, first, second]',
      count: 3,
      expect: 'expect(await published(setup.inboxUrl)).toEqual([first, second].map(messageOf).sort(byEventId));',
    },
    poison: { setup: '', valid: "notice('cy', 'Welcome')", expect: "expect(await published(setup.inboxUrl)).toEqual([messageOf(valid)]);" },
  };
}

function streamExternal(): TestParts {
  return {
    imports: EXTERNAL_IMPORTS,
    helpers: EXTERNAL_HELPERS,
    ...EXTERNAL_WIRING,
    duplicate: {
      setup: `await put(setup.source, { pk: 'item-1', message: 'hello' });
await put(setup.source, { pk: 'item-2', message: 'bye' });
await put(setup.source, { pk: 'item-1', message: 'hello again' });`,
      eventNames: "['INSERT', 'INSERT', 'MODIFY']",
      expect: `// Two inserts, one message each; the modification publishes nothing.
const [first, second] = records;
expect(await published(setup.inboxUrl)).toEqual(
  [
    { eventId: first?.eventID, pk: 'item-1', message: 'hello' },
    { eventId: second?.eventID, pk: 'item-2', message: 'bye' },
  ].sort((a, b) => String(a.eventId).localeCompare(String(b.eventId))),
);`,
    },
    poison: {
      setup: `await put(setup.source, { pk: 'item-3', message: 'hi' });
await put(setup.source, { pk: 'item-4' });`,
      pk: 'item-4',
      expect: "expect(await published(setup.inboxUrl)).toEqual([{ eventId: records[0]?.eventID, pk: 'item-3', message: 'hi' }]);",
    },
  };
}
