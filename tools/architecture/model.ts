/**
 * The pipeline as the template declares it: each consumer with its event source mapping, its
 * source, its dead-letter queues, its alarms, and the tables, databases and topics it uses, and
 * the schedules that run statements on those databases. Everything here is read from resource
 * properties; nothing is assumed from names.
 */
import { CONSUMER_ENV, SQL_ENV } from '../../aws/consumer-env';
import { isAwsCustomResourceProvider, type Template } from '../../aws/cloudformation/template';
import { namedIds, numberOf, ofType, referenced, referencedIds, resourceNamedBy, resourcesOf, type Resource } from './resources';
import { dataApiSchedules, type ScheduleView } from './schedules';

export type { ScheduleView } from './schedules';

export type SourceKind = 'sqs' | 'kinesis' | 'dynamodb-stream';

/** One event source mapping of a consumer. */
export interface MappingView {
  readonly mapping: Resource;
  readonly kind: SourceKind;
  /** The queue, the stream, or the table whose stream it reads. */
  readonly source: Resource;
  /** The source queue's redrive target and its `maxReceiveCount` (SQS). */
  readonly redrive?: { readonly dlq: Resource; readonly maxReceiveCount?: number };
  /** Where Lambda sends a failed batch's metadata (streams). */
  readonly onFailure?: Resource;
}

/** A CloudWatch alarm and what it watches. */
export interface AlarmView {
  readonly alarm: Resource;
  /** What the page says it fires on, e.g. `DLQ messages held > 0`. */
  readonly condition: string;
  readonly subject?: Resource;
  /** The runtime's metrics name their consumer by its service name (`service` dimension), not by a resource. */
  readonly service?: string;
  /** The topics its alarm and OK actions notify. */
  readonly topics: readonly Resource[];
}

/** A table, database or topic a consumer's function uses, and how the template says so. */
export interface UseView {
  readonly resource: Resource;
  /** The environment variable that names it, or `IAM grant` when only a policy does. */
  readonly via: string;
  /** What else the environment says of it: a Data API cluster's database and dedup table (`database \`effects\``). */
  readonly details?: readonly string[];
}

/** A consumer: a function with at least one event source mapping. */
export interface ConsumerView {
  readonly name: string;
  /** The consumer construct's path (`PageViewCounter`). */
  readonly group: string;
  readonly fn: Resource;
  readonly environment: Readonly<Record<string, unknown>>;
  readonly mappings: readonly MappingView[];
  /** `DLQ_URL`: where the runtime sends poison with its failure context. */
  readonly contextDlq?: Resource;
  readonly alarms: readonly AlarmView[];
  readonly uses: readonly UseView[];
}

/** An SNS subscription of a queue: the topic fans its messages out to it. */
export interface SubscriptionView {
  readonly topic: Resource;
  readonly queue: Resource;
  /** Raw message delivery: the queue gets the published message itself, not SNS's notification JSON. */
  readonly raw: boolean;
}

/** The whole pipeline. */
export interface PipelineModel {
  readonly consumers: readonly ConsumerView[];
  readonly alarms: readonly AlarmView[];
  readonly subscriptions: readonly SubscriptionView[];
  readonly tables: readonly Resource[];
  /** The RDS clusters (Aurora), which functions use through the Data API. */
  readonly databases: readonly Resource[];
  /** The schedules that run a Data API statement on one of the databases. */
  readonly schedules: readonly ScheduleView[];
  readonly topics: readonly Resource[];
  readonly resources: ReadonlyMap<string, Resource>;
}

const TYPE = {
  queue: 'AWS::SQS::Queue',
  stream: 'AWS::Kinesis::Stream',
  table: 'AWS::DynamoDB::Table',
  topic: 'AWS::SNS::Topic',
  subscription: 'AWS::SNS::Subscription',
  fn: 'AWS::Lambda::Function',
  mapping: 'AWS::Lambda::EventSourceMapping',
  alarm: 'AWS::CloudWatch::Alarm',
  policy: 'AWS::IAM::Policy',
  database: 'AWS::RDS::DBCluster',
} as const;

/** How the page names a cluster's engine. */
const ENGINE_NAMES: Readonly<Record<string, string>> = { 'aurora-postgresql': 'Aurora PostgreSQL', 'aurora-mysql': 'Aurora MySQL' };

/** A cluster's engine as the page names it: `Aurora PostgreSQL`, or the template's `Engine` when it is another. */
export function engineName(cluster: Resource): string {
  const engine = cluster.properties.Engine;
  return typeof engine === 'string' ? (ENGINE_NAMES[engine] ?? engine) : 'RDS';
}

/** Whether a cluster serves the RDS Data API (`EnableHttpEndpoint`), the way the runtime's SQL store reaches it. */
export function servesDataApi(cluster: Resource): boolean {
  return cluster.properties.EnableHttpEndpoint === true || cluster.properties.EnableHttpEndpoint === 'true';
}

/** Reads the pipeline out of a synthesized template. */
export function pipelineModel(template: Template): PipelineModel {
  const resources = resourcesOf(template);
  const alarms = ofType(resources, TYPE.alarm).map((alarm) => alarmView(alarm, resources));
  // CDK's AwsCustomResource provider makes deploy-time calls (the SQL migrations): never a consumer.
  const consumers = ofType(resources, TYPE.fn)
    .filter((fn) => !isAwsCustomResourceProvider(fn.logicalId))
    .map((fn) => consumerView(fn, resources, alarms))
    .filter((consumer): consumer is ConsumerView => consumer !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    consumers,
    alarms,
    subscriptions: subscriptionViews(resources),
    tables: ofType(resources, TYPE.table),
    databases: ofType(resources, TYPE.database),
    schedules: dataApiSchedules(resources),
    topics: ofType(resources, TYPE.topic),
    resources,
  };
}

function subscriptionViews(resources: ReadonlyMap<string, Resource>): SubscriptionView[] {
  return ofType(resources, TYPE.subscription).flatMap((subscription) => {
    const topic = referenced(subscription.properties.TopicArn, resources);
    const queue = referenced(subscription.properties.Endpoint, resources);
    if (subscription.properties.Protocol !== 'sqs' || topic?.type !== TYPE.topic || queue?.type !== TYPE.queue) return [];
    return [{ topic, queue, raw: subscription.properties.RawMessageDelivery === true }];
  });
}

/** The consumer's name, and its generation from the second on: a rebuilt generation is told from the live one. */
function consumerLabel(environment: Record<string, unknown>, fallback: string): string {
  const name = typeof environment[CONSUMER_ENV.consumerName] === 'string' ? String(environment[CONSUMER_ENV.consumerName]) : fallback;
  const generation = environment[CONSUMER_ENV.generation];
  return typeof generation === 'string' ? `${name} (generation ${generation})` : name;
}

function consumerView(fn: Resource, resources: ReadonlyMap<string, Resource>, alarms: readonly AlarmView[]): ConsumerView | undefined {
  const mappings = ofType(resources, TYPE.mapping)
    .filter((mapping) => referenced(mapping.properties.FunctionName, resources) === fn)
    .map((mapping) => mappingView(mapping, resources))
    .filter((view): view is MappingView => view !== undefined);
  if (mappings.length === 0) return undefined;
  const environment = ((fn.properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
  const contextDlq = queueNamedBy(environment.DLQ_URL, resources);
  const watched = new Set([fn, contextDlq, ...mappings.flatMap((m) => [m.mapping, m.source, m.redrive?.dlq, m.onFailure])].filter(Boolean));
  const isOwn = (alarm: AlarmView): boolean => (alarm.subject !== undefined && watched.has(alarm.subject)) || (alarm.service !== undefined && alarm.service === environment.POWERTOOLS_SERVICE_NAME);
  return {
    name: consumerLabel(environment, fn.path),
    group: fn.path.split('/').slice(0, -1).join('/') || fn.path,
    fn,
    environment,
    mappings,
    contextDlq,
    alarms: alarms.filter(isOwn),
    uses: usesOf(fn, environment, resources, new Set(mappings.map((mapping) => mapping.source))),
  };
}

function mappingView(mapping: Resource, resources: ReadonlyMap<string, Resource>): MappingView | undefined {
  const source = referenced(mapping.properties.EventSourceArn, resources);
  if (source === undefined) return undefined;
  const kind: SourceKind = source.type === TYPE.queue ? 'sqs' : source.type === TYPE.stream ? 'kinesis' : 'dynamodb-stream';
  const redrivePolicy = source.properties.RedrivePolicy as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown } | undefined;
  const redriveDlq = redrivePolicy && referenced(redrivePolicy.deadLetterTargetArn, resources);
  const destination = (mapping.properties.DestinationConfig as { OnFailure?: { Destination?: unknown } } | undefined)?.OnFailure?.Destination;
  return {
    mapping,
    kind,
    source,
    redrive: redriveDlq ? { dlq: redriveDlq, maxReceiveCount: numberOf(redrivePolicy?.maxReceiveCount) } : undefined,
    onFailure: destination === undefined ? undefined : referenced(destination, resources),
  };
}

function queueNamedBy(value: unknown, resources: ReadonlyMap<string, Resource>): Resource | undefined {
  const target = referenced(value, resources);
  return target?.type === TYPE.queue ? target : undefined;
}

/**
 * Tables, databases and topics named by an environment variable, then those only an IAM policy
 * grants, except the consumer's own sources (the mapping's grant to read a table's stream). A
 * variable names a resource itself, not a part of it: a cluster's secret is not the cluster.
 */
function usesOf(fn: Resource, environment: Readonly<Record<string, unknown>>, resources: ReadonlyMap<string, Resource>, sources: ReadonlySet<Resource>): UseView[] {
  const usable = (resource: Resource | undefined): resource is Resource => resource?.type === TYPE.table || resource?.type === TYPE.topic || resource?.type === TYPE.database;
  const uses: UseView[] = [];
  for (const [variable, value] of Object.entries(environment).sort(([a], [b]) => a.localeCompare(b))) {
    const target = resourceNamedBy(value, resources);
    if (usable(target)) uses.push({ resource: target, via: variable, ...(variable === SQL_ENV.resourceArn && { details: dataApiDetails(environment) }) });
  }
  const named = new Set([...uses.map((use) => use.resource), ...sources]);
  for (const granted of grantedTo(fn, resources)) {
    if (usable(granted) && !named.has(granted)) uses.push({ resource: granted, via: 'IAM grant' });
  }
  return uses;
}

/** The database and the dedup table that the SQL store's environment (`SQL_ENV`) names beside the cluster. */
function dataApiDetails(environment: Readonly<Record<string, unknown>>): string[] {
  const detail = (what: string, value: unknown): string[] => (typeof value === 'string' ? [`${what} \`${value}\``] : []);
  return [...detail('database', environment[SQL_ENV.database]), ...detail('dedup table', environment[SQL_ENV.dedupTable])];
}

/** What the policies on the function's role name as resources. */
function grantedTo(fn: Resource, resources: ReadonlyMap<string, Resource>): Resource[] {
  const role = referenced(fn.properties.Role, resources);
  if (role === undefined) return [];
  const policies = ofType(resources, TYPE.policy).filter((policy) => referencedIds(policy.properties.Roles).includes(role.logicalId));
  const ids = policies.flatMap((policy) => namedIds((policy.properties.PolicyDocument as { Statement?: unknown } | undefined)?.Statement));
  return [...new Set(ids)].map((id) => resources.get(id)).filter((resource): resource is Resource => resource !== undefined).sort((a, b) => a.path.localeCompare(b.path));
}

function alarmView(alarm: Resource, resources: ReadonlyMap<string, Resource>): AlarmView {
  const props = alarm.properties;
  // A metric math alarm names its resource inside its metrics.
  const subject = referenced(props.Dimensions ?? props.Metrics, resources);
  const topics = [...new Set([...referencedIds(props.AlarmActions), ...referencedIds(props.OKActions)])]
    .map((id) => resources.get(id))
    .filter((topic): topic is Resource => topic?.type === TYPE.topic)
    .sort((a, b) => a.path.localeCompare(b.path));
  const service = (props.Dimensions as { Name: string; Value: unknown }[] | undefined)?.find((dimension) => dimension.Name === 'service')?.Value;
  return { alarm, condition: conditionOf(props), subject, ...(typeof service === 'string' && { service }), topics };
}

const COMPARISON: Readonly<Record<string, string>> = {
  GreaterThanThreshold: '>',
  GreaterThanOrEqualToThreshold: '>=',
  LessThanThreshold: '<',
  LessThanOrEqualToThreshold: '<=',
};

/** How the page names the metrics of a consumer's other alarms (lib/consumer-alarms.ts). */
const METRIC_LABELS: Readonly<Record<string, string>> = {
  'AWS/Lambda Errors': 'function errors',
  'AWS/Lambda Throttles': 'throttles',
  'EffectivelyOnce ConflictingDuplicates': 'conflicting duplicates',
  'AWS/Lambda FailedInvokeEventCount': 'failed invocations',
  'AWS/Lambda DroppedEventCount': 'dropped events',
  'AWS/SQS ApproximateAgeOfOldestMessage': 'oldest message',
};

/** ` for 5 min` when the alarm waits for more than one one-minute period. */
function forPeriods(props: Readonly<Record<string, unknown>>): string {
  const periods = numberOf(props.EvaluationPeriods) ?? 1;
  const minutes = (periods * (numberOf(props.Period) ?? 60)) / 60;
  return periods > 1 ? ` for ${minutes} min` : '';
}

/** An alarm on a queue's depth: its visible messages, or a metric math sum of its depth metrics (visible + in flight). */
function isDepthAlarm(props: Readonly<Record<string, unknown>>): boolean {
  const depth = (namespace: unknown, metricName: unknown) => namespace === 'AWS/SQS' && String(metricName).startsWith('ApproximateNumberOfMessages');
  if (props.Metrics === undefined) return depth(props.Namespace, props.MetricName);
  const stats = (props.Metrics as { MetricStat?: { Metric?: { Namespace?: string; MetricName?: string } } }[]).flatMap((query) => (query.MetricStat?.Metric ? [query.MetricStat.Metric] : []));
  return stats.length > 0 && stats.every((metric) => depth(metric.Namespace, metric.MetricName));
}

function conditionOf(props: Readonly<Record<string, unknown>>): string {
  const operator = COMPARISON[String(props.ComparisonOperator)] ?? String(props.ComparisonOperator);
  const threshold = numberOf(props.Threshold);
  if (isDepthAlarm(props)) return `DLQ messages held ${operator} ${threshold}`;
  if (props.Namespace === 'AWS/Lambda' && props.MetricName === 'IteratorAge' && threshold !== undefined) return `iterator age ${operator} ${threshold / 1000} s`;
  const label = METRIC_LABELS[`${String(props.Namespace)} ${String(props.MetricName)}`];
  if (label !== undefined) return `${label} ${operator} ${props.MetricName === 'ApproximateAgeOfOldestMessage' ? `${threshold} s` : threshold}${forPeriods(props)}`;
  return `${String(props.Namespace)} ${String(props.MetricName)} ${operator} ${threshold}`;
}
