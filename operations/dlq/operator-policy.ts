/**
 * The IAM policy that the identity running `eo dlq`, `eo replay` and `eo compare` needs on one
 * stack (`eo dlq policy` prints it),
 * built from the stack's topology, which is its deployed template resolved against the live
 * resources: each action the commands call, on the resources they call it on, and nothing else.
 * Writes go only to the DLQs' sources, as a redrive does (redrive-targets.ts): `sqs:SendMessage`
 * on the queues that feed a DLQ, `kinesis:PutRecords` on the streams that do,
 * `lambda:InvokeFunction` on the functions a table stream that feeds a DLQ is consumed by. No
 * `sqs:GetQueueUrl`: queue URLs come from the stack. Each statement's `Sid` says what it is for,
 * so that a role for triage alone can leave out the redrive's, and one for redrive the replay's.
 *
 * A SQL consumer's dedup rows are read through the RDS Data API, which reads the secret as the
 * caller: operator-policy-sql.ts.
 *
 * The queues use SQS-managed encryption, the streams `aws/kinesis` and the archives `aws/s3`: no
 * key policy is involved. A queue or stream given a customer-managed key also needs `kms:Decrypt`
 * (and, to write to it, `kms:GenerateDataKey`) on that key.
 */
import { arnScopeOf, bucketArn, functionArn, type ArnScope } from './permissions';
import { targetKindOf, TargetKind } from './redrive-targets';
import { ON_FAILURE_OBJECT_PREFIX } from '../../aws/lambda/on-failure-object';
import { effectTablesOf } from './consumer-functions';
import { sqlDedupResourcesOf, sqlDedupStatements, type SqlDedupResources } from './operator-policy-sql';
import type { StackTopology } from './types';

/** One `Allow` statement of an identity-based policy. */
export interface PolicyStatement {
  readonly Sid: string;
  readonly Effect: 'Allow';
  readonly Action: readonly string[];
  readonly Resource: readonly string[];
  /** @default - none */
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** An IAM policy document. */
export interface PolicyDocument {
  readonly Version: '2012-10-17';
  readonly Statement: readonly PolicyStatement[];
}

/** The resources of the stack that the statements name, by role. */
interface Resources {
  readonly stack: string;
  readonly queues: string[];
  readonly streams: string[];
  readonly tables: string[];
  readonly dlqs: string[];
  readonly sourceQueues: string[];
  readonly sourceStreams: string[];
  readonly sourceTableStreams: string[];
  readonly buckets: string[];
  readonly archivedObjects: string[];
  readonly dedupTables: string[];
  /** Where the SQL consumers' dedup rows are read through the Data API. */
  readonly sqlDedup: SqlDedupResources;
  readonly streamConsumers: string[];
  /** The Kinesis streams and table streams that the stack's consumers read: what `eo replay` reads again. */
  readonly consumedStreams: string[];
  readonly consumedTableStreams: string[];
  /** Every function a mapping of the stack invokes with a stream's records: whom `eo replay` invokes. */
  readonly replayableConsumers: string[];
  /** The tables the generations of a consumer with more than one write apart: what `eo compare` reads. */
  readonly generationTables: string[];
}

/**
 * The operator's policy for the stack: resolving it, `list` and `inspect`, `redrive`, `replay` and `compare`.
 * @example
 * const context = await awsDlqContext({ stackName: 'EffectivelyOnce' });
 * console.log(JSON.stringify(operatorPolicy(context.topology), null, 2));
 */
export function operatorPolicy(topology: StackTopology): PolicyDocument {
  const on = resourcesOf(topology, arnScopeOf(topology));
  const statements = [
    allow('ResolveTheStack', ['cloudformation:DescribeStacks', 'cloudformation:GetTemplate', 'cloudformation:ListStackResources'], [on.stack]),
    allow('ReadQueueAttributes', ['sqs:GetQueueAttributes'], on.queues),
    allow('DescribeStreams', ['kinesis:DescribeStreamSummary'], on.streams),
    allow('DescribeTables', ['dynamodb:DescribeTable'], on.tables),
    ...triage(on),
    ...redrive(on),
    ...replay(on),
  ];
  return { Version: '2012-10-17', Statement: statements.filter((statement) => statement.Resource.length > 0) };
}

/** `list` and `inspect`: the DLQs' messages, the ranges pointers name, the archives, the dedup records. */
function triage(on: Resources): PolicyStatement[] {
  return [
    allow('ReadDeadLetterQueues', ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility'], on.dlqs),
    allow('ReadSourceStreams', ['kinesis:GetShardIterator', 'kinesis:GetRecords'], on.sourceStreams),
    allow('ReadSourceTableStreams', ['dynamodb:GetShardIterator', 'dynamodb:GetRecords'], on.sourceTableStreams),
    allow('ListFailureArchives', ['s3:ListBucket'], on.buckets),
    allow('ReadArchivedBatches', ['s3:GetObject'], on.archivedObjects),
    allow('LookUpAppliedEvents', ['dynamodb:BatchGetItem'], on.dedupTables),
    ...sqlDedupStatements(on.sqlDedup),
  ];
}

/** `redrive`: back to the sources of the DLQs only, then out of the DLQs and archives. */
function redrive(on: Resources): PolicyStatement[] {
  return [
    allow('RedriveToSourceQueues', ['sqs:SendMessage'], on.sourceQueues),
    allow('RedriveToSourceStreams', ['kinesis:PutRecords'], on.sourceStreams),
    allow('RedriveToTableStreamConsumers', ['lambda:InvokeFunction'], on.streamConsumers),
    allow('DeleteRedrivenMessages', ['sqs:DeleteMessage'], on.dlqs),
    allow('DeleteRedrivenBatches', ['s3:DeleteObject'], on.archivedObjects),
  ];
}

/** `eo replay` (the consumers' streams read again, their functions invoked) and `eo compare` (the generations' tables read whole). */
function replay(on: Resources): PolicyStatement[] {
  return [
    allow('ReplayReadConsumedStreams', ['kinesis:ListShards', 'kinesis:GetShardIterator', 'kinesis:GetRecords'], on.consumedStreams),
    allow('ReplayReadConsumedTableStreams', ['dynamodb:DescribeStream', 'dynamodb:GetShardIterator', 'dynamodb:GetRecords'], on.consumedTableStreams),
    allow('ReplayInvokeStreamConsumers', ['lambda:InvokeFunction'], on.replayableConsumers),
    allow('CompareGenerations', ['dynamodb:Scan'], on.generationTables),
  ];
}

function resourcesOf(topology: StackTopology, scope: ArnScope): Resources {
  const sources = distinct(topology.deadLetterQueues.flatMap((dlq) => dlq.sources.map((source) => source.arn)));
  const ofKind = (kind: TargetKind) => sources.filter((arn) => targetKindOf(arn) === kind);
  const stackQueues = new Set(topology.queues.map((queue) => queue.arn));
  const sourceTableStreams = ofKind(TargetKind.TABLE_STREAM);
  const buckets = distinct(topology.deadLetterQueues.flatMap((dlq) => (dlq.archive ? [dlq.archive.bucket] : [])));
  return {
    stack: `arn:${scope.partition}:cloudformation:${scope.region}:${scope.accountId}:stack/${topology.stackName}/*`,
    queues: distinct(topology.queues.map((queue) => queue.arn)),
    streams: distinct(topology.streams.map((stream) => stream.arn)),
    tables: distinct(topology.tables.map((table) => table.arn)),
    dlqs: distinct(topology.deadLetterQueues.map((dlq) => dlq.arn)),
    sourceQueues: ofKind(TargetKind.QUEUE).filter((arn) => stackQueues.has(arn)),
    sourceStreams: ofKind(TargetKind.KINESIS_STREAM),
    sourceTableStreams,
    buckets: buckets.map((bucket) => bucketArn(scope, bucket)),
    archivedObjects: buckets.map((bucket) => bucketArn(scope, bucket, `${ON_FAILURE_OBJECT_PREFIX}*`)),
    dedupTables: distinct(topology.consumerWindows.flatMap((window) => (window.dedupTable ? [tableArnOf(topology, scope, window.dedupTable)] : []))),
    sqlDedup: sqlDedupResourcesOf(topology, scope),
    streamConsumers: distinct(topology.consumerFunctions.filter((consumer) => sourceTableStreams.includes(consumer.sourceArn)).map((consumer) => functionArn(scope, consumer.functionName))),
    ...replayResourcesOf(topology, scope),
  };
}

function replayResourcesOf(topology: StackTopology, scope: ArnScope): Pick<Resources, 'consumedStreams' | 'consumedTableStreams' | 'replayableConsumers' | 'generationTables'> {
  const streamConsumers = topology.consumerFunctions.filter((consumer) => {
    const kind = targetKindOf(consumer.sourceArn);
    return kind === TargetKind.KINESIS_STREAM || kind === TargetKind.TABLE_STREAM;
  });
  const ofKind = (kind: TargetKind) => distinct(streamConsumers.map((consumer) => consumer.sourceArn).filter((arn) => targetKindOf(arn) === kind));
  return {
    consumedStreams: ofKind(TargetKind.KINESIS_STREAM),
    consumedTableStreams: ofKind(TargetKind.TABLE_STREAM),
    replayableConsumers: distinct(streamConsumers.map((consumer) => functionArn(scope, consumer.functionName))),
    generationTables: distinct(generationTableNames(topology).map((name) => tableArnOf(topology, scope, name))),
  };
}

/** The tables that `eo compare` can pair: every one a generation of a consumer with more than one names apart from the others' (pairGenerations). */
function generationTableNames(topology: StackTopology): string[] {
  const byConsumer = new Map<string, StackTopology['consumerFunctions'][number][]>();
  for (const consumer of topology.consumerFunctions) {
    const name = consumer.name ?? consumer.consumer;
    byConsumer.set(name, [...(byConsumer.get(name) ?? []), consumer]);
  }
  return [...byConsumer.values()].flatMap((generations) => {
    if (new Set(generations.map((consumer) => consumer.generation ?? 1)).size < 2) return [];
    return generations.flatMap((consumer) => Object.values(effectTablesOf(topology, consumer)));
  });
}

function tableArnOf(topology: StackTopology, scope: ArnScope, name: string): string {
  return topology.tables.find((table) => table.name === name)?.arn ?? `arn:${scope.partition}:dynamodb:${scope.region}:${scope.accountId}:table/${name}`;
}

function allow(Sid: string, Action: readonly string[], Resource: readonly string[]): PolicyStatement {
  return { Sid, Effect: 'Allow', Action, Resource };
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}
