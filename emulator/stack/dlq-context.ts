/**
 * The bridge from a local stack running in this process (the demo, `eo local up`, tests) to the
 * DLQ operations: its topology, its clients, and the state file `eo local up` writes. This is the
 * emulator's side of the DLQ tooling: the `eo dlq` commands never load it (they read the state
 * file instead), so what it imports of local/engines stays out of an operator's install.
 */
import { LOCAL_REGION } from '../engines/account';
import { endpointEnv } from '../engines/clients';
import type { LocalStack } from './runtime';
import { LOCAL_STATE_VERSION, type LocalSqlState, type LocalStateFile } from '../../operations/dlq/local-state';
import { groupDlqs } from '../../operations/dlq/topology';
import { consumerFunctions } from '../../operations/dlq/consumer-functions';
import { consumerWindows } from '../../operations/dlq/consumer-windows';
import { tryResolveString } from '../../aws/cloudformation/intrinsics';
import type { DlqContext, StackTopology } from '../../operations/dlq/types';

/** The topology of a local stack started in this process. */
export function topologyOfLocalStack(stack: LocalStack): StackTopology {
  const queues = [...stack.resources.queues.values()].map(({ name, url, arn }) => ({ name, url, arn }));
  return {
    stackName: stack.stackName,
    region: LOCAL_REGION,
    outputs: stack.outputs,
    deadLetterQueues: groupDlqs(stack.deadLetterQueues.map((dlq) => ({ queue: dlq.queue, source: { role: dlq.role, arn: dlq.sourceArn }, archive: dlq.archive }))),
    queues,
    streams: [...stack.resources.streams.values()].map(({ name, arn, retentionHours }) => ({ name, arn, retentionHours })),
    tables: [...stack.resources.tables.values()].map(({ name, arn, streamArn }) => ({ name, arn, streamArn })),
    consumerWindows: consumerWindows(stack.template, (value) => tryResolveString(value, stack.resources.context)),
    consumerFunctions: consumerFunctions(stack.template, (value) => tryResolveString(value, stack.resources.context)),
  };
}

/** The clients and topology of a local stack running in this process (the demo's redrive phase). */
export function dlqContextOfLocalStack(stack: LocalStack): DlqContext {
  const { sqs, kinesis, dynamodb, s3 } = stack.clients;
  return { clients: { sqs, kinesis, dynamodb, s3, dynamodbStreams: stack.dynamodbStreams, lambda: stack.lambda, region: LOCAL_REGION }, topology: topologyOfLocalStack(stack) };
}

/** The state `eo local up` writes for a stack running in this process. */
export function localStateOf(stack: LocalStack, pid: number = process.pid): LocalStateFile {
  const rdsData = stack.sql?.dataApiEndpoint;
  return {
    version: LOCAL_STATE_VERSION,
    pid,
    startedAt: new Date().toISOString(),
    endpoints: { ...stack.endpoints, ...(rdsData && { rdsData }) },
    env: { ...endpointEnv(stack.endpoints), ...(rdsData && { AWS_ENDPOINT_URL_RDS_DATA: rdsData }) },
    topology: topologyOfLocalStack(stack),
    ...(stack.sql && { sql: sqlStateOf(stack.sql) }),
  };
}

function sqlStateOf(sql: NonNullable<LocalStack['sql']>): LocalSqlState {
  const { host, port, user, password } = sql.postgres;
  return {
    clusters: sql.clusters.map((cluster) => ({ resourceArn: cluster.resourceArn, secretArn: cluster.secretArns[0] ?? '', database: cluster.database ?? sql.postgres.database })),
    postgres: { host, port, user, password },
  };
}
