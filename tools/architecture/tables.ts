/** The page's tables: one row per consumer (per event source mapping), and the shared resources. */
import { engineName, servesDataApi, type ConsumerView, type MappingView, type PipelineModel, type UseView } from './model';
import { formatSeconds, numberOf, type Resource } from './resources';

/** Lambda's defaults when a mapping does not set a batch size. */
const DEFAULT_BATCH_SIZE = { sqs: 10, kinesis: 100, 'dynamodb-stream': 100 } as const;

const SOURCE_NAME = { sqs: 'SQS queue', kinesis: 'Kinesis stream', 'dynamodb-stream': 'DynamoDB stream of' } as const;

function code(text: string): string {
  return `\`${text}\``;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
}

/** Every consumer: source, batching, retries, DLQ, alarms, dedup window, function, state. */
export function consumerTable(model: PipelineModel): string {
  const header = ['Consumer', 'Source', 'Batch size', 'Batching window', 'Retries', 'DLQ', 'Alarms', 'Dedup TTL', 'Function', 'Uses'];
  const rows = model.consumers.flatMap((consumer) => consumer.mappings.map((mapping) => consumerRow(consumer, mapping)));
  return table(header, rows);
}

function consumerRow(consumer: ConsumerView, mapping: MappingView): string[] {
  const props = mapping.mapping.properties;
  const window = numberOf(props.MaximumBatchingWindowInSeconds);
  const ttl = numberOf(consumer.environment.DEDUP_TTL_SECONDS);
  return [
    code(consumer.name),
    `${SOURCE_NAME[mapping.kind]} ${code(mapping.source.path)}`,
    String(numberOf(props.BatchSize) ?? DEFAULT_BATCH_SIZE[mapping.kind]),
    window === undefined || window === 0 ? 'none' : formatSeconds(window),
    retriesOf(consumer, mapping),
    dlqOf(consumer, mapping),
    consumer.alarms.map((alarm) => alarm.condition).join('; ') || 'none',
    ttl === undefined ? 'n/a' : formatSeconds(ttl),
    functionOf(consumer.fn),
    consumer.uses.map(useOf).join(', ') || 'none',
  ];
}

/** `` `LedgerTable` (LEDGER_TABLE) ``, with what else the environment says of it after the variable. */
function useOf(use: UseView): string {
  return `${code(use.resource.path)} (${[use.via, ...(use.details?.length ? [use.details.join(', ')] : [])].join('; ')})`;
}

function retriesOf(consumer: ConsumerView, mapping: MappingView): string {
  const props = mapping.mapping.properties;
  if (mapping.kind === 'sqs') {
    const attempts = numberOf(consumer.environment.MAX_ATTEMPTS);
    const receives = mapping.redrive?.maxReceiveCount;
    const own = attempts === undefined ? '' : `; the function dead-letters with context at receive ${attempts}`;
    return receives === undefined ? `no redrive policy${own}` : `maxReceiveCount ${receives}${own}`;
  }
  const retries = numberOf(props.MaximumRetryAttempts);
  const age = numberOf(props.MaximumRecordAgeInSeconds);
  const parts = [
    retries === undefined || retries < 0 ? 'unbounded retries' : `${retries} retries`,
    props.BisectBatchOnFunctionError === true || props.BisectBatchOnFunctionError === 'true' ? 'bisect on error' : 'no bisect',
    age === undefined || age < 0 ? 'no maximum record age' : `records older than ${formatSeconds(age)} skipped`,
  ];
  return parts.join(', ');
}

function dlqOf(consumer: ConsumerView, mapping: MappingView): string {
  const roles = new Map<Resource, string[]>();
  const add = (queue: Resource | undefined, role: string): void => {
    if (queue) roles.set(queue, [...(roles.get(queue) ?? []), role]);
  };
  add(mapping.redrive?.dlq, 'redrive target');
  add(mapping.onFailure, 'on-failure destination');
  add(consumer.contextDlq, 'poison with context');
  if (roles.size === 0) return 'none';
  return [...roles.entries()]
    .map(([queue, what]) => {
      const retention = numberOf(queue.properties.MessageRetentionPeriod);
      return `${code(queue.path)} (${what.join(', ')}${retention === undefined ? '' : `; kept ${formatSeconds(retention)}`})`;
    })
    .join(', ');
}

function functionOf(fn: Resource): string {
  const timeout = numberOf(fn.properties.Timeout);
  const memory = numberOf(fn.properties.MemorySize);
  return [fn.properties.Runtime, timeout === undefined ? undefined : `${timeout} s`, memory === undefined ? undefined : `${memory} MB`].filter(Boolean).join(', ');
}

/** Tables, databases and topics: what they are keyed on, what streams, serves or encrypts them, and who uses them. */
export function sharedTable(model: PipelineModel): string {
  const alarmsOn = (topic: Resource): number => model.alarms.filter((alarm) => alarm.topics.includes(topic)).length;
  const users = (resource: Resource): string => {
    const fedQueues = new Set(model.subscriptions.filter((subscription) => subscription.topic === resource).map((subscription) => subscription.queue));
    const consumers = model.consumers
      .filter((consumer) => consumer.uses.some((use) => use.resource === resource) || consumer.mappings.some((m) => m.source === resource || fedQueues.has(m.source)))
      .map((consumer) => code(consumer.name));
    const schedules = model.schedules.filter((schedule) => schedule.database === resource).map((schedule) => `schedule ${code(schedule.schedule.path)}`);
    const alarms = alarmsOn(resource);
    return [...consumers, ...schedules, ...(alarms > 0 ? [`${alarms} alarm${alarms === 1 ? '' : 's'}`] : [])].join(', ') || 'none';
  };
  const rows = [
    ...model.tables.map((t) => [code(t.path), 'DynamoDB table', tableDetails(t), users(t)]),
    ...model.databases.map((d) => [code(d.path), `${engineName(d)} cluster`, databaseDetails(d, model), users(d)]),
    ...model.topics.map((t) => [code(t.path), 'SNS topic', topicDetails(t, model), users(t)]),
  ];
  return table(['Resource', 'Kind', 'Settings', 'Used by'], rows);
}

function tableDetails(tableResource: Resource): string {
  const props = tableResource.properties;
  const keys = (props.KeySchema as { AttributeName: string; KeyType: string }[] | undefined) ?? [];
  const stream = (props.StreamSpecification as { StreamViewType?: string } | undefined)?.StreamViewType;
  const ttl = (props.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined)?.AttributeName;
  return [
    `key ${keys.map((key) => code(key.AttributeName)).join(' + ') || '?'}`,
    stream ? `stream ${stream}` : 'no stream',
    ttl ? `TTL on ${code(ttl)}` : undefined,
    props.BillingMode === 'PAY_PER_REQUEST' ? 'on demand' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/** A cluster's Data API, database, engine version, Serverless v2 capacity and encryption. */
function databaseDetails(cluster: Resource, model: PipelineModel): string {
  const props = cluster.properties;
  const capacity = props.ServerlessV2ScalingConfiguration as { MinCapacity?: unknown; MaxCapacity?: unknown } | undefined;
  const [min, max] = [numberOf(capacity?.MinCapacity), numberOf(capacity?.MaxCapacity)];
  return [
    servesDataApi(cluster) ? 'Data API' : 'no Data API',
    typeof props.DatabaseName === 'string' ? `database ${code(props.DatabaseName)}` : undefined,
    typeof props.EngineVersion === 'string' ? `engine ${props.EngineVersion}` : undefined,
    min !== undefined && max !== undefined ? `Serverless v2, ${min} to ${max} ACUs` : undefined,
    encryptionOf(props.KmsKeyId, props.StorageEncrypted === true || props.StorageEncrypted === 'true', model),
  ]
    .filter(Boolean)
    .join(', ');
}

/** `encrypted with the customer-managed key …` when a key of the template does, else whether it is encrypted at all. */
function encryptionOf(keyId: unknown, encrypted: boolean, model: PipelineModel): string {
  const key = model.resources.get(String((keyId as { 'Fn::GetAtt'?: [string] } | undefined)?.['Fn::GetAtt']?.[0]));
  if (key) return `encrypted with the customer-managed key ${code(key.path)}`;
  return encrypted ? 'encrypted' : 'not encrypted';
}

function topicDetails(topic: Resource, model: PipelineModel): string {
  return encryptionOf(topic.properties.KmsMasterKeyId, Boolean(topic.properties.KmsMasterKeyId), model);
}
