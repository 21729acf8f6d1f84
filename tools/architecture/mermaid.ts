/**
 * The pipeline as a Mermaid flowchart that GitHub renders: one subgraph per consumer (its source,
 * function, DLQs and alarms), the shared tables, databases, schedules and topics outside. Node
 * ids are construct paths without separators; every label is quoted.
 */
import { engineName, servesDataApi, type ConsumerView, type PipelineModel, type ScheduleView } from './model';
import type { Resource } from './resources';

type Shape = 'queue' | 'dlq' | 'stream' | 'table' | 'database' | 'schedule' | 'function' | 'alarm' | 'topic';

interface Edge {
  readonly from: Resource;
  readonly to: Resource;
  readonly label: string;
}

const SOURCE_LABEL = { sqs: 'events', kinesis: 'records', 'dynamodb-stream': 'stream records' } as const;

/** The flowchart's source, without the code fence. */
export function renderMermaid(model: PipelineModel): string {
  const ids = nodeIds(model);
  const node = (resource: Resource, shape: Shape): string => `${ids.get(resource) ?? resource.nodeId}${shaped(shape, labelOf(resource, shape, model))}`;
  const lines = ['flowchart LR'];
  const grouped = new Set<Resource>();
  for (const consumer of model.consumers) {
    lines.push(`  subgraph consumer_${consumer.group.replace(/[^A-Za-z0-9]/g, '')}["${consumer.name}"]`);
    for (const [resource, shape] of membersOf(consumer)) {
      grouped.add(resource);
      lines.push(`    ${node(resource, shape)}`);
    }
    lines.push('  end');
  }
  for (const table of model.tables) if (!grouped.has(table)) lines.push(`  ${node(table, 'table')}`);
  for (const database of model.databases) lines.push(`  ${node(database, 'database')}`);
  for (const schedule of model.schedules) {
    for (const [resource, shape] of scheduleMembersOf(schedule, model)) {
      if (grouped.has(resource)) continue;
      grouped.add(resource);
      lines.push(`  ${node(resource, shape)}`);
    }
  }
  for (const topic of model.topics) lines.push(`  ${node(topic, 'topic')}`);
  for (const edge of edgesOf(model)) lines.push(`  ${ids.get(edge.from)} -->|"${edge.label}"| ${ids.get(edge.to)}`);
  lines.push(...classLines(model, ids));
  return lines.join('\n');
}

/** A consumer's own nodes, in flow order; a source table is shared, so it stays outside. */
function membersOf(consumer: ConsumerView): [Resource, Shape][] {
  const members: [Resource, Shape][] = [];
  for (const mapping of consumer.mappings) {
    if (mapping.kind !== 'dynamodb-stream') members.push([mapping.source, mapping.kind === 'sqs' ? 'queue' : 'stream']);
  }
  members.push([consumer.fn, 'function']);
  const dlqs = [consumer.contextDlq, ...consumer.mappings.flatMap((mapping) => [mapping.redrive?.dlq, mapping.onFailure])];
  for (const dlq of new Set(dlqs)) if (dlq) members.push([dlq, 'dlq']);
  for (const alarm of consumer.alarms) members.push([alarm.alarm, 'alarm']);
  return members;
}

/** A schedule's own nodes: itself, its dead-letter queue and the alarms on that queue. */
function scheduleMembersOf(schedule: ScheduleView, model: PipelineModel): [Resource, Shape][] {
  const members: [Resource, Shape][] = [[schedule.schedule, 'schedule']];
  if (schedule.dlq) members.push([schedule.dlq, 'dlq'], ...model.alarms.filter((alarm) => alarm.subject === schedule.dlq).map((alarm): [Resource, Shape] => [alarm.alarm, 'alarm']));
  return members;
}

/** Unique node ids, in path order: a clash of two paths' letters gets a numeric suffix. */
function nodeIds(model: PipelineModel): Map<Resource, string> {
  const ids = new Map<Resource, string>();
  const taken = new Set<string>();
  for (const resource of [...model.resources.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    let id = resource.nodeId;
    for (let n = 2; taken.has(id); n++) id = `${resource.nodeId}${n}`;
    taken.add(id);
    ids.set(resource, id);
  }
  return ids;
}

function labelOf(resource: Resource, shape: Shape, model: PipelineModel): string {
  switch (shape) {
    case 'function':
      return `${model.consumers.find((consumer) => consumer.fn === resource)?.name ?? resource.path}<br/>Lambda function`;
    case 'queue':
      return `SQS queue<br/>${resource.path}`;
    case 'dlq':
      return `DLQ<br/>${resource.path}`;
    case 'stream':
      return `Kinesis stream<br/>${resource.path}`;
    case 'table':
      return `DynamoDB table${resource.properties.StreamSpecification ? ' + stream' : ''}<br/>${resource.path}`;
    case 'database':
      return `${engineName(resource)}${servesDataApi(resource) ? ' (Data API)' : ''}<br/>${resource.path}`;
    case 'schedule':
      return `EventBridge Scheduler<br/>${resource.path}: ${model.schedules.find((schedule) => schedule.schedule === resource)?.when ?? 'on a schedule'}`;
    case 'alarm':
      return `alarm: ${model.alarms.find((alarm) => alarm.alarm === resource)?.condition ?? resource.path}`;
    case 'topic':
      return `SNS topic<br/>${resource.path}`;
  }
}

function shaped(shape: Shape, label: string): string {
  const quoted = `"${label.replace(/"/g, "'")}"`;
  switch (shape) {
    case 'queue':
    case 'dlq':
      return `[/${quoted}/]`;
    case 'stream':
      return `[[${quoted}]]`;
    case 'table':
    case 'database':
      return `[(${quoted})]`;
    case 'schedule':
      return `(${quoted})`;
    case 'function':
      return `([${quoted}])`;
    case 'alarm':
      return `{{${quoted}}}`;
    case 'topic':
      return `>${quoted}]`;
  }
}

/**
 * Every edge, in the order data flows: sources, state (a schedule's statement last), failures (a
 * schedule's failed runs last), alarms; two relations of one pair share an edge.
 */
function edgesOf(model: PipelineModel): Edge[] {
  const edges = new Map<string, Edge>();
  const add = (from: Resource, to: Resource, label: string): void => {
    const key = `${from.logicalId}->${to.logicalId}`;
    const existing = edges.get(key);
    edges.set(key, { from, to, label: existing ? `${existing.label}; ${label}` : label });
  };
  for (const subscription of model.subscriptions) add(subscription.topic, subscription.queue, subscription.raw ? 'fan-out, raw' : 'fan-out, SNS notification JSON');
  for (const consumer of model.consumers) {
    for (const mapping of consumer.mappings) add(mapping.source, consumer.fn, SOURCE_LABEL[mapping.kind]);
    for (const use of consumer.uses) add(consumer.fn, use.resource, use.via);
  }
  for (const schedule of model.schedules) add(schedule.schedule, schedule.database, schedule.action);
  for (const consumer of model.consumers) {
    if (consumer.contextDlq) add(consumer.fn, consumer.contextDlq, 'poison, with context');
    for (const mapping of consumer.mappings) {
      if (mapping.redrive) add(mapping.source, mapping.redrive.dlq, `after ${mapping.redrive.maxReceiveCount ?? '?'} receives`);
      if (mapping.onFailure) add(consumer.fn, mapping.onFailure, 'on failure: batch metadata');
    }
  }
  for (const schedule of model.schedules) if (schedule.dlq) add(schedule.schedule, schedule.dlq, 'failed runs');
  for (const alarm of model.alarms) {
    if (alarm.subject) add(alarm.subject, alarm.alarm, 'watched by');
    for (const topic of alarm.topics) add(alarm.alarm, topic, 'ALARM and OK');
  }
  return [...edges.values()];
}

function classLines(model: PipelineModel, ids: ReadonlyMap<Resource, string>): string[] {
  const idsOf = (resources: readonly (Resource | undefined)[]): string =>
    [...new Set(resources.filter((r): r is Resource => r !== undefined).map((r) => ids.get(r)))].sort().join(',');
  const dlqs = idsOf([...model.consumers.flatMap((c) => [c.contextDlq, ...c.mappings.flatMap((m) => [m.redrive?.dlq, m.onFailure])]), ...model.schedules.map((s) => s.dlq)]);
  const alarms = idsOf(model.alarms.map((alarm) => alarm.alarm));
  const functions = idsOf(model.consumers.map((consumer) => consumer.fn));
  return [
    '  classDef fn fill:#e8f0fe,stroke:#1a73e8',
    '  classDef dlq fill:#fdecea,stroke:#c5221f',
    '  classDef alarm fill:#fef7e0,stroke:#e37400',
    ...(functions ? [`  class ${functions} fn`] : []),
    ...(dlqs ? [`  class ${dlqs} dlq`] : []),
    ...(alarms ? [`  class ${alarms} alarm`] : []),
  ];
}
