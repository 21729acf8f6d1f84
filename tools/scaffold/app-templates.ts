/**
 * The files `eo new consumer` writes into a team's own CDK app, which imports the installed
 * package (`effectively-once`, `effectively-once/runtime`) rather than this repository's folders:
 * a one-call handler (`transactionalHandler`), a construct that owns the consumer's resources, and
 * a jest test of the handler's routes with recording clients, which needs no engines.
 */
import { identifiersOf } from './names';
import { PATTERN_LABEL, SOURCE_LABEL, type ConsumerRequest } from './options';
import { fill, wrap } from './render';

/** Where the generated files are, relative to the app's root with `/` separators, and the module paths between them. */
export interface AppFiles {
  readonly handler: string;
  readonly construct: string;
  readonly test: string;
  /** From the construct's folder to the handlers' folder, e.g. `../handlers`. */
  readonly constructToHandlers: string;
  /** From the test's folder to the handler, without extension, e.g. `../handlers/signup-counter`. */
  readonly testToHandler: string;
}

const HANDLER = `/**
{{header}}
 */
import { increment, route, transactionalHandler, type Effects, type HandlerEnv, type PayloadSchema, type Routes } from 'effectively-once/runtime';

export const CONSUMER_NAME = '{{name}}';

/** The event type this consumer handles: a placeholder, use the \`type\` your producer publishes. */
export const EVENT_TYPE = '{{name}}.event';

/** The payload (a placeholder): the key whose counter the event increments. */
export interface {{Pascal}}Payload {
  readonly key: string;
}

/** Any Standard Schema validator will do (zod, valibot, ...); this one needs no library. */
const payload: PayloadSchema<{{Pascal}}Payload> = {
  '~standard': {
    version: 1,
    vendor: '{{name}}',
    validate: (value) => {
      const key = typeof value === 'object' && value !== null ? (value as { key?: unknown }).key : undefined;
      if (typeof key === 'string' && key.length > 0 && key.length <= 512) return { value: { key } };
      return { issues: [{ message: 'must be a string of 1 to 512 characters', path: ['key'] }] };
    },
  },
};

/** The routes, built at the first invocation from the environment the construct set. */
export function routes(env: HandlerEnv): Routes<Effects> {
  const counters = env.require('COUNTERS_TABLE');
  return { [EVENT_TYPE]: route(payload, (event) => [increment(counters, { pk: event.payload.key }, 'count')]) };
}

/** The Lambda entry point: DLQ, attempts, visibility backoff and dedup table come from the environment. */
export const handler = transactionalHandler({ name: CONSUMER_NAME, routes });
`;

const CONSTRUCT = `/**
{{header}}
 */
import * as path from 'node:path';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import { AttributeType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AlarmTopic, IdempotencyTable, QueueConsumer, TableAction, tableDefaults } from 'effectively-once';

/** What {{name}} shares with the rest of the stack. */
export interface {{Pascal}}Props {
  /** Where its alarms go. @default - a topic of its own with no subscriber: pass your stack's */
  readonly alarmTopic?: ITopic;
  /** Where its dedup records go. @default - a table of its own: pass your stack's */
  readonly idempotencyTable?: IdempotencyTable | ITable;
}

/** {{name}}: its queue, DLQ, alarms, function and counters table; its outputs are the stack's. */
export class {{Pascal}} extends Construct {
  public readonly consumer: QueueConsumer;
  public readonly counters: Table;

  public constructor(scope: Construct, id: string, props: {{Pascal}}Props = {}) {
    super(scope, id);
    this.counters = new Table(this, 'Counters', { ...tableDefaults(), partitionKey: { name: 'pk', type: AttributeType.STRING } });
    this.consumer = new QueueConsumer(this, 'Consumer', {
      consumerName: '{{name}}',
      entry: path.join(__dirname, {{entry}}),
      alarmTopic: props.alarmTopic ?? new AlarmTopic(this, 'Alarms').topic,
      // The increments, in the same transactions as the dedup puts.
      tables: { COUNTERS_TABLE: { table: this.counters, actions: [TableAction.UPDATE_ITEM] } },
      // IDEMPOTENCY_TABLE, with PutItem and BatchGetItem for the dedup records.
      idempotency: { table: props.idempotencyTable ?? new IdempotencyTable(this, 'Idempotency') },
    });
    const outputs = {
      QueueUrl: this.consumer.queue.queueUrl,
      DlqUrl: this.consumer.deadLetterQueue.queueUrl,
      CountersTableName: this.counters.tableName,
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(Stack.of(this), \`\${id}\${name}\`, { value });
  }
}
`;

const TEST = `/**
{{header}}
 */
import { describe, expect, test } from '@jest/globals';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createEnvelope, transactionalHandler, type AwsClients } from 'effectively-once/runtime';
import { CONSUMER_NAME, EVENT_TYPE, routes } from '{{testToHandler}}';

const DLQ_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/{{name}}-dlq';
const ENV = { CONSUMER_NAME, DLQ_URL, IDEMPOTENCY_TABLE: 'idempotency', COUNTERS_TABLE: 'counters' };

interface Sent {
  readonly command: string;
  readonly input: Record<string, any>;
}

/** Clients that record every command and answer each with an empty success. */
function recordingClients(): { clients: AwsClients; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, any> }) => {
      sent.push({ command: command.constructor.name, input: command.input });
      return {};
    },
  };
  return { clients: { dynamodb: client, sqs: client, sns: client, kinesis: client } as unknown as AwsClients, sent };
}

/** The handler as the construct configures it, on recording clients. */
function handlerOn(clients: AwsClients) {
  return transactionalHandler({ name: CONSUMER_NAME, routes, env: ENV, clients });
}

/** An event as the producer publishes it: the same key and id always give the same eventId. */
function counted(key: string, id: string) {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${key}:\${id}\`, source: 'test', payload: { key } });
}

function sqsEvent(...bodies: string[]): SQSEvent {
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
}

/** The transactions' actions: the dedup puts' ids and the counters' increments. */
function committed(sent: readonly Sent[]): { dedupIds: string[]; increments: Record<string, number> } {
  const actions = sent.filter((each) => each.command === 'TransactWriteItemsCommand').flatMap((each) => each.input.TransactItems);
  const dedupIds = actions.filter((action) => action.Put?.TableName === ENV.IDEMPOTENCY_TABLE).map((action) => action.Put.Item.id.S).sort();
  const increments: Record<string, number> = {};
  for (const { Update } of actions.filter((action) => action.Update?.TableName === ENV.COUNTERS_TABLE)) {
    increments[Update.Key.pk.S] = (increments[Update.Key.pk.S] ?? 0) + Number(Update.ExpressionAttributeValues[':v0'].N);
  }
  return { dedupIds, increments };
}

describe('{{name}}', () => {
  test('a producer retry in the batch is counted once', async () => {
    const { clients, sent } = recordingClients();
    const [first, second] = [counted('home', 'view-1'), counted('home', 'view-2')];
    const response = await handlerOn(clients)(sqsEvent(...[first, first, second].map((event) => JSON.stringify(event))));
    expect(response.batchItemFailures).toEqual([]);
    expect(committed(sent)).toEqual({ dedupIds: [first, second].map((event) => \`\${CONSUMER_NAME}#\${event.eventId}\`).sort(), increments: { home: 2 } });
  });

  test('a poison message goes to the DLQ with its failure context while the rest are counted', async () => {
    const { clients, sent } = recordingClients();
    const poison = '{"eventId": 42}';
    const response = await handlerOn(clients)(sqsEvent(JSON.stringify(counted('pricing', 'view-1')), poison));
    expect(response.batchItemFailures).toEqual([]);
    expect(committed(sent).increments).toEqual({ pricing: 1 });
    const dead = sent.filter((each) => each.command === 'SendMessageCommand' && each.input.QueueUrl === DLQ_URL);
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]?.input.MessageBody ?? '{}')).toMatchObject({
      format: 'effectively-once/failure',
      consumer: CONSUMER_NAME,
      reason: 'permanent',
      error: { name: 'InvalidEnvelopeError', kind: 'permanent' },
      original: { body: poison },
    });
  });
});
`;

function header(request: ConsumerRequest, summary: string, command: boolean): string {
  const { title, doc } = PATTERN_LABEL[request.pattern];
  const what = `${request.name} (${SOURCE_LABEL[request.source]}, ${title}): ${summary}`;
  const how = command
    ? `Generated by \`eo new consumer ${request.name} --source ${request.source} --pattern ${request.pattern}\`; edit it like your own code. ` +
      `The event type and payload are placeholders: replace them with what your producer sends. The pattern: node_modules/effectively-once/${doc}.`
    : 'Generated by `eo new consumer`; edit it like any construct code. The consumer construct\'s defaults are the safe ones: tune batch size, timeout or retries in its props.';
  return `${wrap(what, 100, ' * ')}\n *\n${wrap(how, 100, ' * ')}`;
}

/** `handlers/<name>.ts`: the one-call handler, its placeholder payload schema, and its routes for the test. */
export function renderAppHandler(request: ConsumerRequest): string {
  const summary = 'counts each event once per key, however often it is delivered: its dedup record and its increment commit in one DynamoDB transaction.';
  return fill(HANDLER, { name: request.name, Pascal: identifiersOf(request.name).pascal, header: header(request, summary, true) });
}

/** `<stack folder>/<name>.ts`: the construct, which the stack adds with `new <Pascal>(this, '<Pascal>', ...)`. */
export function renderAppConstruct(request: ConsumerRequest, files: AppFiles): string {
  const handler = files.handler.split('/').pop() ?? `${request.name}.ts`;
  const entry = [...files.constructToHandlers.split('/'), handler].map((part) => `'${part}'`).join(', ');
  const summary = `the queue, its DLQ and alarms, the function (${files.handler}) and a counters table.`;
  return fill(CONSTRUCT, { name: request.name, Pascal: identifiersOf(request.name).pascal, entry, header: header(request, summary, false) });
}

/** `<tests>/<name>.test.ts`: the handler's routes on recording clients, with a duplicate and a poison message. */
export function renderAppTest(request: ConsumerRequest, files: AppFiles): string {
  const summary = 'the handler on recording clients: a producer retry in a batch is counted once, and a poison message goes to the DLQ with its failure context. Local mode (`npx eo local up`) runs the same handler on the engines.';
  return fill(TEST, { name: request.name, testToHandler: files.testToHandler, header: header(request, summary, true) });
}

/** The construct ids the consumer adds at the top of the stack (outputs included). */
export function appConstructIds(request: ConsumerRequest): string[] {
  const { pascal } = identifiersOf(request.name);
  return [pascal, `${pascal}QueueUrl`, `${pascal}DlqUrl`, `${pascal}CountersTableName`];
}
