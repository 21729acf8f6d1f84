/** The page's tables: one row per consumer (per event source mapping), and the shared resources. */
import type { ConsumerView, MappingView, PipelineModel } from './model';
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
    consumer.uses.map((use) => `${code(use.resource.path)} (${use.via})`).join(', ') || 'none',
  ];
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

/** Tables and topics: what they are keyed on, what streams or encrypts them, and who uses them. */
export function sharedTable(model: PipelineModel): string {
  const alarmsOn = (topic: Resource): number => model.alarms.filter((alarm) => alarm.topics.includes(topic)).length;
  const users = (resource: Resource): string => {
    const fedQueues = new Set(model.subscriptions.filter((subscription) => subscription.topic === resource).map((subscription) => subscription.queue));
    const consumers = model.consumers
      .filter((consumer) => consumer.uses.some((use) => use.resource === resource) || consumer.mappings.some((m) => m.source === resource || fedQueues.has(m.source)))
      .map((consumer) => code(consumer.name));
    const alarms = alarmsOn(resource);
    return [...consumers, ...(alarms > 0 ? [`${alarms} alarm${alarms === 1 ? '' : 's'}`] : [])].join(', ') || 'none';
  };
  const rows = [
    ...model.tables.map((t) => [code(t.path), 'DynamoDB table', tableDetails(t), users(t)]),
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

function topicDetails(topic: Resource, model: PipelineModel): string {
  const key = model.resources.get(String((topic.properties.KmsMasterKeyId as { 'Fn::GetAtt'?: [string] } | undefined)?.['Fn::GetAtt']?.[0]));
  if (key) return `encrypted with the customer-managed key ${code(key.path)}`;
  return topic.properties.KmsMasterKeyId ? 'encrypted' : 'not encrypted';
}
