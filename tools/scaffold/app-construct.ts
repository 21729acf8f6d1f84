/**
 * The construct `eo new consumer` writes into a team's app: a class that owns the consumer's
 * resources (the source's consumer construct with its DLQ and alarms, the pattern's table or
 * topic, and for DynamoDB Streams a source table), takes the stack's alarm topic and idempotency
 * table when it has them, and adds its outputs to the stack. The table entries and the output ids
 * are the in-repo construct's (./construct-template.ts).
 */
import { outputIdsOf, OWN_SOURCE_TABLE, PATTERN_TABLE, tablesProp } from './construct-template';
import { identifiersOf } from './names';
import { Pattern, Source, type ConsumerRequest } from './options';
import { fill, importLines, indent, type ImportSpec } from './render';
import { sqlConstantOf, sqlEnvironmentProp, sqlSchemaDeclarations, sqlSchemaId } from './sql-parts';

/** What the construct class gains from its source or its pattern. */
interface AppWiring {
  readonly imports: readonly ImportSpec[];
  /** `public readonly` fields, e.g. `counters: Table`. */
  readonly fields: readonly string[];
  /** Statements before the consumer construct. */
  readonly statements: readonly string[];
  /** Props of the consumer construct. */
  readonly props: readonly string[];
  /** Statements after it. */
  readonly after: readonly string[];
  /** Outputs, by their name after the construct's id. */
  readonly outputs: Readonly<Record<string, string>>;
  /** What it owns, in words. */
  readonly owns: string;
  /** Exported constants before the props. @default - none */
  readonly declarations?: string;
}

const EO = 'effectively-once';
const DYNAMODB = 'aws-cdk-lib/aws-dynamodb';

/** The source's consumer construct, by source. */
export const APP_CONSUMER_CLASS: Readonly<Record<Source, string>> = { sqs: 'QueueConsumer', kinesis: 'KinesisConsumer', 'dynamodb-stream': 'DynamoStreamConsumer' };

function ownTable(field: string, id: string, stream: boolean): string {
  const streamLine = stream ? '\n  // Both images: the handler sees what a change changed.\n  stream: StreamViewType.NEW_AND_OLD_IMAGES,' : '';
  return `this.${field} = new Table(this, '${id}', {\n  ...tableDefaults(),\n  partitionKey: { name: 'pk', type: AttributeType.STRING },${streamLine}\n});`;
}

const TABLE_IMPORTS: ImportSpec[] = [[DYNAMODB, 'AttributeType'], [DYNAMODB, 'Table'], [EO, 'tableDefaults']];

function sourceWiring(source: Source): AppWiring {
  if (source === Source.SQS) return { imports: [], fields: [], statements: [], props: [], after: [], outputs: { QueueUrl: 'this.consumer.queue.queueUrl' }, owns: 'its queue' };
  if (source === Source.KINESIS) {
    return {
      imports: [['aws-cdk-lib', 'Duration']],
      fields: [],
      statements: [],
      props: [
        "// The stream's retention (24 hours to 365 days): the construct gives dedup records a TTL that\n// outlives it, the DLQ's retention and the redrive allowance, and refuses a shorter `dedupTtl`.\nretentionPeriod: Duration.hours(24),",
      ],
      after: [],
      outputs: { StreamName: 'this.consumer.stream.streamName' },
      owns: 'its stream',
    };
  }
  return {
    imports: [...TABLE_IMPORTS, [DYNAMODB, 'StreamViewType']],
    fields: ['source: Table'],
    statements: [`// ${OWN_SOURCE_TABLE.replace('\n', '\n// ')}. To consume another table, pass it as \`table\`.\n${ownTable('source', 'Source', true)}`],
    props: ['table: this.source,'],
    after: [],
    outputs: { SourceTableName: 'this.source.tableName' },
    owns: 'its source table (with a stream)',
  };
}

const IDEMPOTENCY_TABLE = "props.idempotencyTable ?? new IdempotencyTable(this, 'Idempotency')";

function patternWiring(request: ConsumerRequest): AppWiring {
  if (request.pattern === Pattern.COUNTER) {
    return {
      imports: [...TABLE_IMPORTS, [EO, 'IdempotencyTable'], [EO, 'TableAction']],
      fields: ['counters: Table'],
      statements: [ownTable('counters', 'Counters', false)],
      props: [tablesProp([PATTERN_TABLE.counter('this.counters')]), `// IDEMPOTENCY_TABLE, with PutItem and BatchGetItem for the dedup records.\nidempotency: { table: ${IDEMPOTENCY_TABLE} },`],
      after: [],
      outputs: { CountersTableName: 'this.counters.tableName' },
      owns: 'a counters table',
    };
  }
  if (request.pattern === Pattern.SQL) return sqlWiring(request);
  if (request.pattern === Pattern.UPSERT) {
    return {
      imports: [...TABLE_IMPORTS, [EO, 'TableAction']],
      fields: ['projection: Table'],
      statements: [ownTable('projection', 'Projection', false)],
      props: [tablesProp([PATTERN_TABLE.upsert('this.projection')])],
      after: [],
      outputs: { ProjectionTableName: 'this.projection.tableName' },
      owns: 'a projection table',
    };
  }
  return {
    imports: [['aws-cdk-lib/aws-sns', 'type ITopic'], [EO, 'addEncryptedTopic'], [EO, 'grantPublishToEncryptedTopic'], [EO, 'IdempotencyTable'], [EO, 'IdempotencyUse']],
    fields: ['topic: ITopic'],
    statements: [`this.topic = addEncryptedTopic(this, 'Topic', { description: 'Encrypts the ${request.name} topic' }).topic;`],
    props: [
      'environment: { TOPIC_ARN: this.topic.topicArn },',
      `// IDEMPOTENCY_TABLE, with what Powertools idempotency calls: put (the lock), get, update (COMPLETED), delete.\nidempotency: { table: ${IDEMPOTENCY_TABLE}, uses: [IdempotencyUse.EXTERNAL_EFFECTS] },`,
    ],
    after: ['grantPublishToEncryptedTopic(this.topic, this.consumer.function);'],
    outputs: { TopicArn: 'this.topic.topicArn' },
    owns: 'the topic it publishes to',
  };
}

/** The SQL pattern: its tables added to the stack's database (the `database` prop), and its function connected to it. */
function sqlWiring(request: ConsumerRequest): AppWiring {
  const constant = sqlConstantOf(request.name);
  return {
    imports: [[EO, 'type SqlEffectDatabase']],
    fields: [],
    declarations: sqlSchemaDeclarations(request.name),
    statements: [`props.database.addSchema('${sqlSchemaId(request.name)}', ${constant}_SCHEMA);`],
    props: [sqlEnvironmentProp(request.name)],
    after: ['// The Data API\'s cluster, secret, database and dedup table in its environment, and exactly the grants it uses.', 'props.database.connect(this.consumer.function);'],
    outputs: { EntriesTableName: `${constant}_TABLES.entries`, TotalsTableName: `${constant}_TABLES.totals` },
    owns: 'its tables in the stack\'s SQL database',
  };
}

const SOURCE_OWNS: Readonly<Record<Source, string>> = { sqs: 'queue', kinesis: 'stream', 'dynamodb-stream': 'source table' };
const PATTERN_OWNS: Readonly<Record<Pattern, string>> = { counter: 'counters table', upsert: 'projection table', external: 'topic', sql: 'tables in the SQL database' };

/** What the construct owns, in words: `stream, DLQ, alarms, function, projection table`. */
export function appOwns(request: ConsumerRequest): string {
  return `${SOURCE_OWNS[request.source]}, DLQ, alarms, function, ${PATTERN_OWNS[request.pattern]}`;
}

/** Whether the construct keeps dedup or effect records, and so takes the stack's idempotency table. */
export function usesIdempotencyTable(request: ConsumerRequest): boolean {
  return request.pattern === Pattern.COUNTER || request.pattern === Pattern.EXTERNAL;
}

/** Whether the construct takes the stack's `SqlEffectDatabase`, shared by the app's SQL consumers. */
export function usesSqlDatabase(request: ConsumerRequest): boolean {
  return request.pattern === Pattern.SQL;
}

const CONSTRUCT = `/**
{{header}}
 */
import * as path from 'node:path';
{{imports}}

{{declarations}}/** What {{name}} shares with the rest of the stack. */
export interface {{Pascal}}Props {
  /** Where its alarms go. @default - a topic of its own with no subscriber: pass your stack's */
  readonly alarmTopic?: ITopic;{{sharedProps}}
}

/** {{name}}: {{owns}}; its outputs are the stack's. */
export class {{Pascal}} extends Construct {
  public readonly consumer: {{className}};{{fields}}

  public constructor(scope: Construct, id: string, props: {{Pascal}}Props{{propsDefault}}) {
    super(scope, id);
{{statements}}
    this.consumer = new {{className}}(this, 'Consumer', {
      consumerName: '{{name}}',
      entry: path.join(__dirname, {{entry}}),
      alarmTopic: props.alarmTopic ?? new AlarmTopic(this, 'Alarms').topic,
{{props}}
    });
{{after}}    const outputs = {
{{outputs}}
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(Stack.of(this), \`\${id}\${name}\`, { value });
  }
}
`;

const IDEMPOTENCY_PROP = `
  /** Where its idempotency records go. @default - a table of its own: pass your stack's */
  readonly idempotencyTable?: IdempotencyTable | ITable;`;

const DATABASE_PROP = `
  /** The stack's SQL database, shared by its SQL consumers: this one's tables are added to it, and its function connected. */
  readonly database: SqlEffectDatabase;`;

/** The construct's source, given its header and the handler's entry as `path.join` arguments. */
export function renderAppConstructFile(request: ConsumerRequest, header: string, entry: string): string {
  const { pascal } = identifiersOf(request.name);
  const className = APP_CONSUMER_CLASS[request.source];
  const parts = [sourceWiring(request.source), patternWiring(request)];
  const lines = (pick: (wiring: AppWiring) => readonly string[], spaces: number): string => indent(parts.flatMap(pick).join('\n'), spaces);
  const idempotency = usesIdempotencyTable(request);
  const outputs: Record<string, string> = { ...parts[0]?.outputs, DlqUrl: 'this.consumer.deadLetterQueue.queueUrl', ...parts[1]?.outputs };
  const after = lines((wiring) => wiring.after, 4);
  const imports: ImportSpec[] = [
    ['aws-cdk-lib', 'CfnOutput'],
    ['aws-cdk-lib', 'Stack'],
    ['aws-cdk-lib/aws-sns', 'type ITopic'],
    ['constructs', 'Construct'],
    [EO, 'AlarmTopic'],
    [EO, className],
    ...(idempotency ? ([[DYNAMODB, 'type ITable']] as ImportSpec[]) : []),
    ...parts.flatMap((wiring) => wiring.imports),
  ];
  return fill(CONSTRUCT, {
    header,
    imports: importLines(imports),
    name: request.name,
    Pascal: pascal,
    declarations: parts.flatMap((wiring) => (wiring.declarations ? [`${wiring.declarations}\n\n`] : [])).join(''),
    sharedProps: `${idempotency ? IDEMPOTENCY_PROP : ''}${usesSqlDatabase(request) ? DATABASE_PROP : ''}`,
    // A SQL consumer cannot make its own database: the props are required.
    propsDefault: usesSqlDatabase(request) ? '' : ' = {}',
    owns: `${parts[0]?.owns}, its DLQ and alarms, its function, and ${parts[1]?.owns}`,
    className,
    fields: parts.flatMap((wiring) => wiring.fields).map((field) => `\n  public readonly ${field};`).join(''),
    statements: lines((wiring) => wiring.statements, 4),
    entry,
    props: lines((wiring) => wiring.props, 6),
    after: after === '' ? '' : `${after}\n`,
    outputs: Object.entries(outputs).map(([name, value]) => `      ${name}: ${value},`).join('\n'),
  });
}

/** The construct ids the consumer adds at the top of the stack: its own and its outputs', as the in-repo construct names them. */
export function appConstructIds(request: ConsumerRequest): string[] {
  return [identifiersOf(request.name).pascal, ...outputIdsOf(request)];
}
