/**
 * The construct file of a generated consumer, `example/consumers/<name>.ts`: an `add<Name>(pipeline)`
 * function that adds the consumer construct, what only it uses (its state table or topic, and for
 * DynamoDB Streams its source table), and its outputs.
 */
import type { TableAction } from '../../lib/consumer-props';
import { identifiersOf } from './names';
import { Pattern, PATTERN_LABEL, Source, SOURCE_LABEL, type ConsumerRequest } from './options';
import { fill, importLines, wrap } from './render';
import { sqlConstantOf, sqlEnvironmentProp, sqlSchemaDeclarations, sqlSchemaId, sqlTablesOf } from './sql-parts';

/** The construct ids the file adds at the top of the stack (outputs included), to check for clashes. */
export function constructIdsOf(request: ConsumerRequest): string[] {
  const { pascal } = identifiersOf(request.name);
  const ids = [pascal, `${pascal}DlqUrl`, ...sourceIds(request.source, pascal), ...patternIds(request.pattern, pascal)];
  return ids.sort();
}

/** What the stack gains, in words, for the report. */
export function additionsOf(request: ConsumerRequest): string[] {
  const { pascal } = identifiersOf(request.name);
  const source = { sqs: 'a queue and its DLQ', kinesis: 'a stream and its DLQ', 'dynamodb-stream': 'a DLQ (the on-failure destination)' }[request.source];
  const alarms = request.source === Source.SQS ? 'a DLQ depth alarm' : 'a DLQ depth alarm and an iterator-age alarm';
  const owned = {
    counter: [`${pascal}Counters (table)`],
    upsert: [`${pascal}Projection (table)`],
    external: [`${pascal}Topic (SNS topic, with its key ${pascal}TopicKey)`],
    sql: [`${Object.values(sqlTablesOf(request.name)).join(' and ')} (tables in the stack's SQL database, created at deploy by addSchema), and the function connected to it (the Data API's variables and grants)`],
  }[request.pattern];
  const sourceTable = request.source === Source.DYNAMODB_STREAM ? [`${pascal}Source (table with a stream)`] : [];
  const outputs = outputIdsOf(request);
  return [
    `${pascal}: ${source}, ${alarms}, the function and its event source mapping`,
    ...sourceTable,
    ...owned,
    `outputs ${outputs.join(', ')}`,
  ];
}

/** The stack outputs the consumer adds, by their ids: its source's, its DLQ's and its state's names. */
export function outputIdsOf(request: ConsumerRequest): string[] {
  return constructIdsOf(request).filter((id) => /(Url|Name|Arn)$/.test(id));
}

function sourceIds(source: Source, pascal: string): string[] {
  if (source === Source.SQS) return [`${pascal}QueueUrl`];
  if (source === Source.KINESIS) return [`${pascal}StreamName`];
  return [`${pascal}Source`, `${pascal}SourceTableName`];
}

function patternIds(pattern: Pattern, pascal: string): string[] {
  if (pattern === Pattern.COUNTER) return [`${pascal}Counters`, `${pascal}CountersTableName`];
  if (pattern === Pattern.UPSERT) return [`${pascal}Projection`, `${pascal}ProjectionTableName`];
  if (pattern === Pattern.SQL) return [`${pascal}EntriesTableName`, `${pascal}TotalsTableName`];
  return [`${pascal}Topic`, `${pascal}TopicKey`, `${pascal}TopicArn`];
}

const CONSTRUCT: Readonly<Record<Source, { readonly className: string; readonly file: string }>> = {
  sqs: { className: 'QueueConsumer', file: '../../lib' },
  kinesis: { className: 'KinesisConsumer', file: '../../lib' },
  'dynamodb-stream': { className: 'DynamoStreamConsumer', file: '../../lib' },
};

/** What the function is given, and the statements that create what only it uses. */
interface Wiring {
  readonly imports: readonly [module: string, name: string][];
  readonly statements: readonly string[];
  readonly props: readonly string[];
  readonly after: readonly string[];
  readonly outputs: readonly string[];
  readonly owns: string;
  /** Exported constants before the `add<Name>` function. @default - none */
  readonly declarations?: string;
}

function table(variable: string, id: string, stream: boolean): string {
  const streamLine = stream ? '\n  // Both images: the handler sees what a change changed.\n  stream: StreamViewType.NEW_AND_OLD_IMAGES,' : '';
  return `const ${variable} = new Table(pipeline, '${id}', {
  ...tableDefaults(),
  partitionKey: { name: 'pk', type: AttributeType.STRING },${streamLine}
});`;
}

const TABLE_IMPORTS: [string, string][] = [['aws-cdk-lib/aws-dynamodb', 'AttributeType'], ['aws-cdk-lib/aws-dynamodb', 'Table'], ['../../lib', 'tableDefaults']];
const TABLE_ACTION_IMPORT: [string, string] = ['../../lib', 'TableAction'];
const IDEMPOTENCY = 'pipeline.idempotencyTable.table';

/** One `tables` entry: why the function needs it, its variable, the table, and its `TableAction` names. */
export type TableEntry = readonly [comment: string, variable: string, table: string, actions: readonly (keyof typeof TableAction)[]];

/** The table a counter or upsert handler writes its effects to, as a `tables` entry of the given table expression. */
export const PATTERN_TABLE = {
  counter: (table: string): TableEntry => ['// The increments, in the same transactions as the dedup puts.', 'COUNTERS_TABLE', table, ['UPDATE_ITEM']],
  upsert: (table: string): TableEntry => ['// putIfNewer: one conditional put per event.', 'PROJECTION_TABLE', table, ['PUT_ITEM']],
} as const;

/** Why a source-table consumer has a table of its own, for the comment above it. */
export const OWN_SOURCE_TABLE = 'A source table of its own: a DynamoDB stream serves at most two readers per shard without\nthrottling';

/** The `tables` prop: each table with exactly the actions the handler's pattern calls on it. */
export function tablesProp(entries: readonly TableEntry[]): string {
  const lines = entries.flatMap(([comment, variable, tableExpression, actions]) => [
    `  ${comment}`,
    `  ${variable}: { table: ${tableExpression}, actions: [${actions.map((action) => `TableAction.${action}`).join(', ')}] },`,
  ]);
  return ['tables: {', ...lines, '},'].join('\n');
}

function sourceWiring(request: ConsumerRequest, pascal: string): Wiring {
  if (request.source === Source.SQS) {
    return { imports: [], statements: [], props: [], after: [], outputs: [`${pascal}QueueUrl: consumer.queue.queueUrl,`], owns: 'its queue' };
  }
  if (request.source === Source.KINESIS) {
    return { imports: [], statements: [], props: [], after: [], outputs: [`${pascal}StreamName: consumer.stream.streamName,`], owns: 'its stream' };
  }
  return {
    imports: [...TABLE_IMPORTS, ['aws-cdk-lib/aws-dynamodb', 'StreamViewType']],
    statements: [
      `// ${OWN_SOURCE_TABLE.replace('\n', '\n// ')}, and the orders table already has one. To consume another table, pass it as \`table\`.\n` +
        table('source', `${pascal}Source`, true),
    ],
    props: ['table: source,'],
    after: [],
    outputs: [`${pascal}SourceTableName: source.tableName,`],
    owns: 'its source table (with a stream)',
  };
}

function patternWiring(request: ConsumerRequest, pascal: string): Wiring {
  if (request.pattern === Pattern.COUNTER) {
    return {
      imports: [...TABLE_IMPORTS, TABLE_ACTION_IMPORT],
      statements: [table('counters', `${pascal}Counters`, false)],
      props: [
        tablesProp([
          PATTERN_TABLE.counter('counters'),
          ['// The dedup puts, and the read of redelivered events\' dedup records.', 'IDEMPOTENCY_TABLE', IDEMPOTENCY, ['PUT_ITEM', 'BATCH_GET_ITEM']],
        ]),
      ],
      after: [],
      outputs: [`${pascal}CountersTableName: counters.tableName,`],
      owns: 'its counters table',
    };
  }
  if (request.pattern === Pattern.SQL) return sqlWiring(request, pascal);
  if (request.pattern === Pattern.UPSERT) {
    return {
      imports: [...TABLE_IMPORTS, TABLE_ACTION_IMPORT],
      statements: [table('projection', `${pascal}Projection`, false)],
      props: [tablesProp([PATTERN_TABLE.upsert('projection')])],
      after: [],
      outputs: [`${pascal}ProjectionTableName: projection.tableName,`],
      owns: 'its projection table',
    };
  }
  return {
    imports: [['../../lib', 'addEncryptedTopic'], ['../../lib', 'grantPublishToEncryptedTopic'], TABLE_ACTION_IMPORT],
    statements: [`const { topic } = addEncryptedTopic(pipeline, '${pascal}Topic', { description: 'Encrypts the ${request.name} topic' });`],
    props: [
      tablesProp([
        ['// Powertools idempotency\'s record: put (the lock), get, update (COMPLETED), delete (after a failed effect).', 'IDEMPOTENCY_TABLE', IDEMPOTENCY, ['PUT_ITEM', 'GET_ITEM', 'UPDATE_ITEM', 'DELETE_ITEM']],
      ]),
      'environment: { TOPIC_ARN: topic.topicArn },',
    ],
    after: ['grantPublishToEncryptedTopic(topic, consumer.function);'],
    outputs: [`${pascal}TopicArn: topic.topicArn,`],
    owns: 'the topic it publishes to',
  };
}

/** The SQL pattern: its tables added to the stack's shared database, and its function connected to it. */
function sqlWiring(request: ConsumerRequest, pascal: string): Wiring {
  const constant = sqlConstantOf(request.name);
  return {
    imports: [],
    declarations: sqlSchemaDeclarations(request.name),
    statements: [`// Its tables in the stack's SQL database, shared with the other SQL consumers.\npipeline.sqlDatabase.addSchema('${sqlSchemaId(request.name)}', ${constant}_SCHEMA);`],
    props: [sqlEnvironmentProp(request.name)],
    after: ['// The Data API\'s cluster, secret, database and dedup table in its environment, and exactly the grants it uses.', 'pipeline.sqlDatabase.connect(consumer.function);'],
    outputs: [`${pascal}EntriesTableName: ${constant}_TABLES.entries,`, `${pascal}TotalsTableName: ${constant}_TABLES.totals,`],
    owns: 'its tables in the stack\'s SQL database',
  };
}

const TEMPLATE = `/**
{{header}}
 */
{{imports}}

{{declarations}}{{addDoc}}
export function add{{Pascal}}(pipeline: EventPipelineStack): {{className}} {
{{statements}}
  const consumer = new {{className}}(pipeline, '{{Pascal}}', {
    consumerName: '{{name}}',
    entry: pipeline.handlerEntry('{{name}}.ts'),
    alarmTopic: pipeline.alarmTopic.topic,
{{props}}
  });
{{after}}  const outputs: Record<string, string> = {
{{outputs}}
  };
  for (const [id, value] of Object.entries(outputs)) new CfnOutput(pipeline, id, { value });
  return consumer;
}
`;

/** The source of `example/consumers/<name>.ts`. */
export function renderConstruct(request: ConsumerRequest): string {
  const { pascal } = identifiersOf(request.name);
  const construct = CONSTRUCT[request.source];
  const parts = [sourceWiring(request, pascal), patternWiring(request, pascal)];
  const lines = (pick: (wiring: Wiring) => readonly string[], spaces: number): string =>
    parts.flatMap(pick).map((line) => line.split('\n').map((l) => ' '.repeat(spaces) + l).join('\n')).join('\n');
  const after = lines((wiring) => wiring.after, 2);
  const what = `${request.name}: ${SOURCE_LABEL[request.source]} -> example/handlers/${request.name}.ts (${PATTERN_LABEL[request.pattern].title}).`;
  const how = 'Generated by `eo new consumer`; edit it like any construct code. The construct\'s defaults are the safe ones (lib/defaults.ts): tune batch size, timeout or retries in its props.';
  return fill(TEMPLATE, {
    header: `${wrap(what, 100, ' * ')}\n${wrap(how, 100, ' * ')}`,
    imports: importLines([
      ['aws-cdk-lib', 'CfnOutput'],
      ['../event-pipeline-stack', 'type EventPipelineStack'],
      [construct.file, construct.className],
      ...parts.flatMap((wiring) => wiring.imports),
    ]),
    name: request.name,
    Pascal: pascal,
    declarations: parts.flatMap((wiring) => (wiring.declarations ? [`${wiring.declarations}\n\n`] : [])).join(''),
    addDoc: `/**\n${wrap(`Adds ${request.name} with ${parts.map((wiring) => wiring.owns).join(' and ')}; the consumer construct adds its DLQ, its alarms and its function.`, 100, ' * ')}\n */`,
    className: construct.className,
    statements: lines((wiring) => wiring.statements, 2),
    props: lines((wiring) => wiring.props, 4),
    after: after === '' ? '' : `${after}\n`,
    outputs: lines((wiring) => [...wiring.outputs, ...(wiring === parts[0] ? [`${pascal}DlqUrl: consumer.deadLetterQueue.queueUrl,`] : [])], 4),
  });
}
