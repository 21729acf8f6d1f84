/**
 * The generated test, `test/example/generated/<name>.int.test.ts`: the handler against the local
 * engines (as the example handlers' tests run), with a duplicate and a poison record, asserting
 * the exact effect and the DLQ message's failure context.
 */
import { identifiersOf } from './names';
import { isStrategyRequest, Pattern, Source, type ConsumerRequest } from './options';
import { fill, importLines, indent, wrap } from './render';
import { testParts, type TestParts } from './test-parts';
import type { ImportSpec } from './render';
import { sqlConstantOf } from './sql-parts';
import { sqlTestParts } from './sql-test-parts';

const RUNTIME = '../../../lambdas/runtime';

const HEADER = `/**
{{summary}}
 */
{{imports}}
{{occurredAt}}{{noWait}}
`;

const NO_WAIT = '\nconst noWait = { sleep: async () => undefined, maxAttempts: 3 };';

const CLIENTS = `
let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));
`;

const STREAM_CLIENTS = `
let clients: LocalClients;
let streams: DynamoDBStreamsClient;
beforeAll(() => {
  clients = testClients();
  streams = tableStreamsClient();
});
afterAll(() => {
  destroyClients(clients);
  streams.destroy();
});
`;

const SET_UP = `
/** Fresh resources on the shared engines, and the handler wired to them. */
async function setUp() {
  const [{{names}}] = await Promise.all([
{{creates}}
  ]);
  const handler = create{{Pascal}}({
{{config}}
    clients,
    retry: noWait,
  });
  return { handler, {{returns}} };
}
`;

/** A SQL consumer's: `sqlHandler` reads the environment the constructs set, and runs on the test's Data API session. */
const SQL_SET_UP = `
/** Fresh resources on the shared engines, and the handler wired to them and to the test's database. */
async function setUp() {
  const [{{names}}] = await Promise.all([
{{creates}}
  ]);
  const handler = create{{Pascal}}({
    env: {
{{config}}
    },
    clients,
    session,
  });
  return { handler, {{returns}} };
}
`;

const DLQ_CONTEXT = `  const failures = await dlqFailures(clients.sqs, setup.dlq.url);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({
    format: 'effectively-once/failure',
    consumer: CONSUMER_NAME,
    reason: 'permanent',
    attempts: 1,
{{context}}
  });`;

const SQS_TESTS = `
test('a duplicate is applied once: a producer retry in the batch, and the batch delivered again', async () => {
  const setup = await setUp();
{{dupSetup}}
  await publishToSqs(clients.sqs, setup.queue.url, {{batch}}.map((event) => outgoingMessage(event)));
  const records = await receiveAsLambdaRecords(clients.sqs, setup.queue, {{count}});
  expect(records).toHaveLength({{count}});
  expect((await setup.handler(sqsEvent(...records){{args}})).batchItemFailures).toEqual([]);
  // A crash after the commit and before the acknowledgement: Lambda delivers the same batch again.
  expect((await setup.handler(sqsEvent(...records){{args}})).batchItemFailures).toEqual([]);
{{dupExpect}}
});

test('a poison record goes to the DLQ with its failure context while the rest are applied', async () => {
  const setup = await setUp();
  const valid = {{valid}};
  const poison = sqsRecord('{"eventId": 42}', { queueArn: setup.queue.arn });
  const response = await setup.handler(sqsEvent(sqsRecord(valid, { queueArn: setup.queue.arn }), poison){{args}});
  expect(response.batchItemFailures).toEqual([]);
{{poisonExpect}}
{{dlqContext}}
});
`;

const KINESIS_TESTS = `
/** Publishes as the producer does, and reads the records back as Lambda delivers them. */
async function publish(streamName: string, messages: OutgoingMessage[]): Promise<KinesisStreamRecord[]> {
  await publishToKinesis(clients.kinesis, streamName, messages);
  return readKinesis(clients.kinesis, streamName);
}

test('a duplicate is applied once: a producer retry in the stream, and the batch delivered again', async () => {
  const setup = await setUp();
{{dupSetup}}
  const records = await publish(setup.stream.streamName, {{batch}}.map((event) => outgoingMessage(event)));
  expect(records).toHaveLength({{count}});
  expect((await setup.handler(kinesisEvent(...records){{args}})).batchItemFailures).toEqual([]);
  // A crash after the commit and before the checkpoint: Lambda delivers the same batch again.
  expect((await setup.handler(kinesisEvent(...records){{args}})).batchItemFailures).toEqual([]);
{{dupExpect}}
});

test('a poison record goes to the DLQ with its failure context while the rest are applied', async () => {
  const setup = await setUp();
  const valid = {{valid}};
  const records = await publish(setup.stream.streamName, [{ body: 'not json', partitionKey: 'poison' }, outgoingMessage(valid)]);
  expect((await setup.handler(kinesisEvent(...records){{args}})).batchItemFailures).toEqual([]);
{{poisonExpect}}
{{dlqContext}}
  expect(Buffer.from(failures[0]?.original.body ?? '', 'base64').toString('utf8')).toBe('not json');
});
`;

const STREAM_TESTS = `
/** Writes an item to the source table, as the application that owns the table would. */
async function put(table: string, item: Record<string, unknown>): Promise<void> {
  await clients.dynamodb.send(new PutItemCommand({ TableName: table, Item: marshall(item) }));
}
{{remove}}
test('a change delivered twice is applied once', async () => {
  const setup = await setUp();
{{dupSetup}}
  const records = await readTableStream(streams, setup.streamArn);
  expect(records.map((record) => record.eventName)).toEqual({{eventNames}});
  expect((await setup.handler(dynamoEvent(...records){{args}})).batchItemFailures).toEqual([]);
  // A crash after the effects and before the checkpoint: Lambda delivers the same records again.
  expect((await setup.handler(dynamoEvent(...records){{args}})).batchItemFailures).toEqual([]);
{{dupExpect}}
});

test('a poison change goes to the DLQ with its failure context while the rest are applied', async () => {
  const setup = await setUp();
{{poisonSetup}}
  const records = await readTableStream(streams, setup.streamArn);
  const poison = records[1];
  expect((await setup.handler(dynamoEvent(...records){{args}})).batchItemFailures).toEqual([]);
{{poisonExpect}}
{{dlqContext}}
  // The original is the change as the stream holds it, so that triage sees the item as written.
  expect(JSON.parse(failures[0]?.original.body ?? '{}')).toMatchObject({ Keys: { pk: { S: '{{poisonPk}}' } } });
});
`;

const REMOVE = `
async function remove(table: string, pk: string): Promise<void> {
  await clients.dynamodb.send(new DeleteItemCommand({ TableName: table, Key: marshall({ pk }) }));
}
`;

/** What each source adds: imports, resources, handler config, returned fields, tests, DLQ context. */
interface SourceParts {
  readonly imports: readonly ImportSpec[];
  readonly resources: readonly (readonly [string, string])[];
  readonly config: readonly string[];
  /** The same settings as the environment the construct sets, for `sqlHandler`. */
  readonly env: readonly string[];
  readonly returns: readonly string[];
  readonly tests: string;
  readonly context: string;
}

const FIXTURES = '../../helpers/fixtures';
const ENGINES = '../../helpers/engines';
const EVENTS = '../../helpers/events';

function sourceParts(source: Source): SourceParts {
  if (source === Source.SQS) {
    return {
      imports: [[RUNTIME, 'outgoingMessage'], [RUNTIME, 'publishToSqs'], [FIXTURES, 'dlqFailures'], [FIXTURES, 'queueWithDlq'], [FIXTURES, 'receiveAsLambdaRecords'], [EVENTS, 'sqsEvent'], [EVENTS, 'sqsRecord']],
      resources: [['{ queue, dlq }', "queueWithDlq(clients.sqs, '{{name}}')"]],
      config: ['dlqUrl: dlq.url,', 'sourceQueueUrl: queue.url,', 'maxAttempts: 5,'],
      env: ['DLQ_URL: dlq.url,', 'SOURCE_QUEUE_URL: queue.url,', "MAX_ATTEMPTS: '5',"],
      returns: ['queue', 'dlq'],
      tests: SQS_TESTS,
      context: `    error: { name: 'InvalidEnvelopeError', kind: 'permanent', details: { problem: 'wrong-type', field: 'eventId' } },
    source: { kind: 'sqs', arn: setup.queue.arn, itemIdentifier: poison.messageId },
    original: { body: '{"eventId": 42}', encoding: 'utf8' },`,
    };
  }
  if (source === Source.KINESIS) {
    return {
      imports: [[RUNTIME, 'outgoingMessage'], [RUNTIME, 'publishToKinesis'], [RUNTIME, 'type OutgoingMessage'], ['aws-lambda', 'type KinesisStreamRecord'], [FIXTURES, 'dlqFailures'], [ENGINES, 'createQueue'], [ENGINES, 'createStream'], [ENGINES, 'uniqueName'], [EVENTS, 'kinesisEvent'], ['../../helpers/streams', 'readKinesis']],
      resources: [['stream', "createStream(clients.kinesis, uniqueName('{{name}}'), 1)"], ['dlq', "createQueue(clients.sqs, uniqueName('{{name}}-dlq'))"]],
      config: ['dlqUrl: dlq.url,'],
      env: ['DLQ_URL: dlq.url,'],
      returns: ['stream', 'dlq'],
      tests: KINESIS_TESTS,
      context: `    error: { name: 'InvalidEnvelopeError', kind: 'permanent' },
    source: { kind: 'kinesis', arn: setup.stream.streamArn, itemIdentifier: records[0]?.kinesis.sequenceNumber },
    original: { encoding: 'base64' },`,
    };
  }
  return {
    imports: [['@aws-sdk/client-dynamodb', 'PutItemCommand'], ['@aws-sdk/util-dynamodb', 'marshall'], ['@aws-sdk/client-dynamodb-streams', 'type DynamoDBStreamsClient'], [FIXTURES, 'dlqFailures'], [FIXTURES, 'pkTable'], [ENGINES, 'createQueue'], [ENGINES, 'uniqueName'], [EVENTS, 'dynamoEvent'], ['../../helpers/streams', 'readTableStream'], ['../../helpers/streams', 'tableStreamsClient']],
    resources: [['source', "pkTable(clients.dynamodb, '{{name}}-source', true)"], ['dlq', "createQueue(clients.sqs, uniqueName('{{name}}-dlq'))"]],
    config: ['dlqUrl: dlq.url,'],
    env: ['DLQ_URL: dlq.url,'],
    returns: ['source: source.tableName', "streamArn: source.streamArn ?? ''", 'dlq'],
    tests: STREAM_TESTS,
    context: `    eventId: poison?.eventID,
    error: { name: 'SchemaViolationError', kind: 'permanent' },
    source: { kind: 'dynamodb-stream', arn: setup.streamArn, itemIdentifier: poison?.dynamodb?.SequenceNumber },`,
  };
}

function handlerImports(request: ConsumerRequest, parts: TestParts, values: Readonly<Record<string, string>>): ImportSpec[] {
  const { pascal } = identifiersOf(request.name);
  const module = `../../../example/handlers/${request.name}`;
  const code = fill(parts.helpers, values);
  const uses = (name: string): boolean => new RegExp(`\\b${name}\\b`).test(code);
  const names = ['CONSUMER_NAME', `create${pascal}`, ...['EVENT_TYPE', `type ${pascal}Payload`, `type ${pascal}Message`].filter((name) => uses(name.replace(/^type /, '')))];
  return names.map((name) => [module, name]);
}

function summary(name: string): string {
  return (
    `${name} against the local engines: a duplicate is applied once, and a poison record goes to the ` +
    'DLQ with its failure context while the rest are applied. Generated by `eo new consumer`; keep ' +
    'both scenarios when you change the handler, and add your own beside them.'
  );
}

/** The source of `test/example/generated/<name>.int.test.ts`. */
export function renderTest(request: ConsumerRequest): string {
  const parts = isStrategyRequest(request) ? testParts(request) : sqlTestParts(request);
  const source = sourceParts(request.source);
  const { pascal } = identifiersOf(request.name);
  const resources = [...parts.resources, ...source.resources];
  const constant = sqlConstantOf(request.name);
  const values = { name: request.name, Pascal: pascal, TABLES: `${constant}_TABLES`, SCHEMA: `${constant}_SCHEMA` };
  const imports: ImportSpec[] = [
    ...parts.imports.map(([module, name]): ImportSpec => [module === '{{runtime}}' ? RUNTIME : module, name]),
    ...source.imports,
    ...handlerImports(request, parts, values),
    ['../../../emulator/engines', 'destroyClients'],
    ['../../../emulator/engines', 'type LocalClients'],
    [ENGINES, 'testClients'],
  ];
  if (request.source === Source.DYNAMODB_STREAM && parts.duplicate.setup.includes('remove(')) imports.push(['@aws-sdk/client-dynamodb', 'DeleteItemCommand']);
  const sqlPattern = request.pattern === Pattern.SQL;
  if (sqlPattern) imports.push(...[values.SCHEMA, values.TABLES].map((name): ImportSpec => [`../../../example/consumers/${request.name}`, name]));
  const body = [
    fill(HEADER, {
      summary: wrap(summary(request.name), 100, ' * '),
      imports: importLines(imports),
      // Envelopes carry the producer's time; a stream change carries the stream's.
      occurredAt: request.source === Source.DYNAMODB_STREAM ? '' : "\nconst OCCURRED_AT = '2026-11-30T10:00:00.000Z';",
      // sqlHandler takes no retry settings: nothing in these scenarios is retried.
      noWait: sqlPattern ? '' : NO_WAIT,
    }),
    request.source === Source.DYNAMODB_STREAM ? STREAM_CLIENTS : CLIENTS,
    parts.helpers === '' ? '' : `\n${fill(parts.helpers, values)}\n`,
    fill(sqlPattern ? SQL_SET_UP : SET_UP, {
      ...values,
      names: resources.map(([name]) => name).join(', '),
      creates: resources.map(([, create]) => `    ${fill(create, values)},`).join('\n'),
      config: (sqlPattern ? [...source.env, ...parts.config] : [...parts.config, ...source.config]).map((line) => `${sqlPattern ? '      ' : '    '}${fill(line, values)}`).join('\n'),
      returns: [...source.returns, ...parts.returns].join(', '),
    }),
    fill(source.tests, {
      dupSetup: indent(parts.duplicate.setup, 2),
      batch: parts.duplicate.batch ?? '',
      count: String(parts.duplicate.count ?? 0),
      eventNames: parts.duplicate.eventNames ?? '',
      args: parts.handlerArgs,
      dupExpect: indent(parts.duplicate.expect, 2),
      valid: parts.poison.valid ?? '',
      poisonSetup: indent(parts.poison.setup, 2),
      poisonPk: parts.poison.pk ?? '',
      poisonExpect: indent(parts.poison.expect, 2),
      remove: parts.duplicate.setup.includes('remove(') ? REMOVE : '',
      dlqContext: fill(DLQ_CONTEXT, { context: source.context }),
    }),
  ];
  return body.join('').replace(/\n{3,}/g, '\n\n');
}
