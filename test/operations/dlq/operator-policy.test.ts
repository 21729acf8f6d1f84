/**
 * The operator's IAM policy (`eo dlq policy`), generated from the example stack as deployed: each
 * action eo dlq calls, on the stack's ARNs, writes only to the DLQs' sources. IAM's decision on it
 * is taken by local mode's evaluator (emulator/iam), from the requests as the SDK sends them.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Template } from '../../../aws/cloudformation/template';
import { authorize, AwsService, compileRolePolicies, requiredPermissions, type RolePolicies } from '../../../emulator/iam';
import { deployedTopology, operatorPolicy, type PolicyDocument, type StackTopology } from '../../../operations/dlq';
import { ACCOUNT, deployed, REGION } from './deployed-example';

const topology = deployedTopology(deployed());
const policy = operatorPolicy(topology);
const operator = rolePolicies(policy);

/** A template with one role that holds the policy inline, compiled for the evaluator. */
function rolePolicies(document: PolicyDocument): RolePolicies {
  const template = { Resources: { Operator: { Type: 'AWS::IAM::Role', Properties: { RoleName: 'operator', Policies: [{ PolicyName: 'eo-dlq', PolicyDocument: document }] } } } } as unknown as Template;
  return compileRolePolicies(template, (value) => value);
}

const queueArn = (prefix: string) => topology.queues.find((queue) => queue.name.startsWith(`EffectivelyOnce-${prefix}`))?.arn ?? '';
const queueUrl = (prefix: string) => topology.queues.find((queue) => queue.name.startsWith(`EffectivelyOnce-${prefix}`))?.url ?? '';
const streamArn = () => topology.streams[0]?.arn ?? '';
const tableStreamArn = () => topology.tables.find((table) => table.streamArn)?.streamArn ?? '';
const functionOf = (consumer: string) => topology.consumerFunctions.find((candidate) => candidate.consumer === consumer)?.functionName ?? '';
const statement = (sid: string) => policy.Statement.find((candidate) => candidate.Sid === sid);

/** Whether IAM allows the operator the request, as the SDK sends it. */
function allows(service: AwsService, operation: string, input: Record<string, unknown>): boolean {
  const permissions = requiredPermissions(service, operation, input, { region: REGION, accountId: ACCOUNT, streamArnOfToken: (token) => token });
  const principal = { roleLogicalId: 'Operator', roleName: 'operator', sessionName: 'on-call', accountId: ACCOUNT };
  return authorize(operator, { service, principal, permissions, context: { 'aws:SecureTransport': 'true' } }).allowed;
}

test('a redrive writes only to the DLQs\' sources: the two source queues, the orders stream, the table stream\'s consumer', () => {
  expect(statement('RedriveToSourceQueues')).toEqual({ Sid: 'RedriveToSourceQueues', Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [queueArn('AccountLedgerQueue'), queueArn('InvoicePaymentsQueue'), queueArn('PageViewCounterQueue')].sort() });
  expect(statement('RedriveToSourceStreams')).toMatchObject({ Action: ['kinesis:PutRecords'], Resource: [streamArn()] });
  expect(statement('RedriveToTableStreamConsumers')).toMatchObject({ Action: ['lambda:InvokeFunction'], Resource: [`arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionOf('shipment-notifier')}`] });
  expect(statement('DeleteRedrivenMessages')?.Resource).toEqual(topology.deadLetterQueues.map((dlq) => dlq.arn).sort());
});

test('every resource is an ARN of the stack, none a wildcard but the stack\'s own id and what the template cannot name (a new cluster\'s secret and its key, through Secrets Manager alone); GetQueueUrl is not granted', () => {
  const resources = policy.Statement.flatMap((entry) => entry.Resource);
  expect(resources.filter((resource) => resource.includes('*'))).toEqual([
    `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/EffectivelyOnce/*`,
    `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:rds!cluster-*`,
    `arn:aws:kms:${REGION}:${ACCOUNT}:key/*`,
  ]);
  expect(statement('DecryptSqlDedupSecrets')?.Condition).toEqual({ StringEquals: { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` } });
  expect(resources.every((resource) => resource.startsWith(`arn:aws:`) && resource.includes(`:${ACCOUNT}:`))).toBe(true);
  expect(policy.Statement.flatMap((entry) => entry.Action)).not.toContain('sqs:GetQueueUrl');
  expect(statement('LookUpAppliedEvents')?.Resource).toEqual([topology.tables.find((table) => table.name.startsWith('EffectivelyOnce-IdempotencyTable'))?.arn]);
});

test('IAM allows what list, inspect and a redrive of each DLQ call', () => {
  for (const dlq of topology.deadLetterQueues) {
    for (const operation of ['GetQueueAttributes', 'ReceiveMessage', 'ChangeMessageVisibilityBatch', 'DeleteMessage']) expect([dlq.name, operation, allows(AwsService.SQS, operation, { QueueUrl: dlq.url })]).toEqual([dlq.name, operation, true]);
  }
  expect(allows(AwsService.SQS, 'SendMessage', { QueueUrl: queueUrl('PageViewCounterQueue') })).toBe(true);
  expect(allows(AwsService.KINESIS, 'GetShardIterator', { StreamARN: streamArn() })).toBe(true);
  expect(allows(AwsService.KINESIS, 'GetRecords', { ShardIterator: streamArn() })).toBe(true);
  expect(allows(AwsService.KINESIS, 'PutRecords', { StreamARN: streamArn() })).toBe(true);
  expect(allows(AwsService.DYNAMODB_STREAMS, 'GetShardIterator', { StreamArn: tableStreamArn() })).toBe(true);
  expect(allows(AwsService.DYNAMODB_STREAMS, 'GetRecords', { ShardIterator: tableStreamArn() })).toBe(true);
  expect(allows(AwsService.LAMBDA, 'Invoke', { FunctionName: functionOf('shipment-notifier') })).toBe(true);
});

test('IAM denies a send to a queue outside the stack or one that feeds no DLQ, a put to another stream, and the invocation of any function but a stream consumer', () => {
  expect(allows(AwsService.SQS, 'SendMessage', { QueueUrl: `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/payments` })).toBe(false);
  expect(allows(AwsService.SQS, 'SendMessage', { QueueUrl: `https://sqs.${REGION}.amazonaws.com/210987654321/${queueUrl('PageViewCounterQueue').split('/').pop()}` })).toBe(false);
  expect(allows(AwsService.SQS, 'SendMessage', { QueueUrl: queueUrl('PageViewCounterDlq') })).toBe(false);
  expect(allows(AwsService.SQS, 'GetQueueUrl', { QueueName: 'payments' })).toBe(false);
  expect(allows(AwsService.KINESIS, 'PutRecords', { StreamName: 'payments' })).toBe(false);
  // A queue consumer has nothing to replay; a stream consumer is invoked by `eo replay` (ReplayInvokeStreamConsumers).
  expect(allows(AwsService.LAMBDA, 'Invoke', { FunctionName: functionOf('page-view-counter') })).toBe(false);
  expect(allows(AwsService.LAMBDA, 'Invoke', { FunctionName: functionOf('order-projection') })).toBe(true);
  expect(allows(AwsService.LAMBDA, 'Invoke', { FunctionName: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:payments` })).toBe(false);
});

test('inspect\'s read of the SQL consumer\'s dedup rows is allowed on its cluster, its secret and its function\'s settings, and nowhere else', () => {
  const cluster = topology.consumerWindows.find((window) => window.consumer === 'invoice-payments')?.sqlDedup?.resourceArn ?? '';
  expect(cluster).toMatch(new RegExp(`^arn:aws:rds:${REGION}:${ACCOUNT}:cluster:`));
  const inTransaction = { resourceArn: cluster, secretArn: `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:rds!cluster-1-AbCdEf` };
  for (const operation of ['BeginTransaction', 'ExecuteStatement', 'CommitTransaction', 'RollbackTransaction']) expect([operation, allows(AwsService.RDS_DATA, operation, inTransaction)]).toEqual([operation, true]);
  expect(allows(AwsService.RDS_DATA, 'ExecuteStatement', { ...inTransaction, resourceArn: `arn:aws:rds:${REGION}:${ACCOUNT}:cluster:other` })).toBe(false);
  expect(allows(AwsService.RDS_DATA, 'BatchExecuteStatement', inTransaction)).toBe(false);
  expect(statement('ReadSqlDedupSecrets')).toMatchObject({ Action: ['secretsmanager:GetSecretValue'], Resource: [inTransaction.secretArn.replace(/1-AbCdEf$/, '*')] });
  expect(statement('ReadSqlConsumerSettings')).toMatchObject({ Action: ['lambda:GetFunctionConfiguration'], Resource: [`arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionOf('invoice-payments')}`] });
});

test('a stack with a failure archive grants its bucket\'s on-failure objects, and nothing of a stack without one', () => {
  const withArchive: StackTopology = { ...topology, deadLetterQueues: [...topology.deadLetterQueues, { name: 'index', url: 'https://sqs/index', arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:index`, sources: [{ role: 'on-failure', arn: streamArn() }], archive: { bucket: 'failures' } }] };
  const archived = operatorPolicy(withArchive).Statement;
  expect(archived.find((entry) => entry.Sid === 'ListFailureArchives')?.Resource).toEqual(['arn:aws:s3:::failures']);
  expect(archived.find((entry) => entry.Sid === 'ReadArchivedBatches')?.Resource).toEqual(['arn:aws:s3:::failures/aws/lambda/*']);
  expect(archived.find((entry) => entry.Sid === 'DeleteRedrivenBatches')).toMatchObject({ Action: ['s3:DeleteObject'], Resource: ['arn:aws:s3:::failures/aws/lambda/*'] });
  expect(policy.Statement.some((entry) => entry.Action.some((action) => action.startsWith('s3:')))).toBe(false);
});

test('docs/operations.md lists each statement with its actions, as the policy has them', () => {
  const docs = readFileSync(path.join(__dirname, '../../../docs/operations.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Permissions: `eo dlq policy`'), docs.indexOf('The stack is read from CloudFormation alone'));
  const rows = [...section.matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map(([, sid, actions]) => [sid, [...(actions ?? '').matchAll(/`([\w:-]+)`/g)].map((match) => match[1])]).filter(([sid]) => sid !== 'Sid');
  const withArchive: StackTopology = { ...topology, deadLetterQueues: [...topology.deadLetterQueues, { name: 'index', url: 'https://sqs/index', arn: `arn:aws:sqs:${REGION}:${ACCOUNT}:index`, sources: [], archive: { bucket: 'failures' } }] };
  expect(rows).toEqual(operatorPolicy(withArchive).Statement.map((entry) => [entry.Sid, entry.Action]));
});
