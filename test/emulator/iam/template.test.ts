/**
 * The synthesized stack's roles, evaluated as IAM would: each function may make the calls its
 * runtime and its event source mapping make, and nothing the other consumers need; each statement
 * of its policy is needed by one of those calls.
 */
import { Template as CdkTemplate } from 'aws-cdk-lib/assertions';
import {
  authorize,
  compileRolePolicies,
  deployedResolveContext,
  functionPrincipal,
  requiredPermissions,
  type AuthorizationResult,
  AwsService,
  type RequestContext,
  type RequestInput,
  type RolePolicies,
} from '../../../emulator/iam';
import { resolveValue } from '../../../aws/cloudformation/intrinsics';
import { resourcesOfType, type Template } from '../../../aws/cloudformation/template';
import { EventPipelineStack } from '../../../example/event-pipeline-stack';
import { testApp } from '../../lib/support';

const SCOPE = { stackName: 'EffectivelyOnce', region: 'us-east-1', accountId: '123456789012' } as const;
const TLS: RequestContext = { 'aws:SecureTransport': 'true' };

// The examples alone: consumers that `eo new consumer` adds have their own roles.
const template = CdkTemplate.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [] })).toJSON() as Template;
const context = deployedResolveContext(template, SCOPE);

function compile(source: Template): RolePolicies {
  const names = deployedResolveContext(source, SCOPE);
  return compileRolePolicies(source, (value) => resolveValue(value, names));
}

/** The logical id of the only resource of `type` whose id starts with `prefix`. */
function idOf(type: string, prefix: string): string {
  const ids = resourcesOfType(template, type).map((resource) => resource.logicalId).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ')}`);
  return ids[0];
}

const deployed = (id: string) => context.resources.get(id) ?? { ref: '', attributes: {} };
const queueUrl = (prefix: string): string => deployed(idOf('AWS::SQS::Queue', prefix)).ref;
const tableName = (prefix: string): string => deployed(idOf('AWS::DynamoDB::Table', prefix)).ref;
const topicArn = (prefix: string): string => deployed(idOf('AWS::SNS::Topic', prefix)).ref;
const keyArn = (prefix: string): string => deployed(idOf('AWS::KMS::Key', prefix)).attributes.Arn;

const Q = { pageViews: queueUrl('PageViewCounterQueue'), pageViewsDlq: queueUrl('PageViewCounterDlq'), ordersDlq: queueUrl('OrderProjectionDlq'), shipmentsDlq: queueUrl('ShipmentNotifierDlq') };
const T = { dedup: tableName('IdempotencyTable'), counters: tableName('CountersTable'), orders: tableName('OrdersTable') };
const ORDERS_STREAM = deployed(idOf('AWS::Kinesis::Stream', 'OrderProjectionStream')).ref;
const ORDERS_TABLE_STREAM = deployed(idOf('AWS::DynamoDB::Table', 'OrdersTable')).attributes.StreamArn;
const CLUSTER = deployed(idOf('AWS::RDS::DBCluster', 'SqlEffectsCluster'));
const SQL = { cluster: CLUSTER.attributes.DBClusterArn, secret: CLUSTER.attributes['MasterUserSecret.SecretArn'], payments: queueUrl('InvoicePaymentsQueue'), paymentsDlq: queueUrl('InvoicePaymentsDlq') };
const NOTIFICATIONS = topicArn('NotificationsTopic');
const ALARMS = topicArn('AlarmsTopic');

/** Shard iterators the contract layer handed out, and the streams they read. */
const ITERATORS = new Map([
  ['orders-iterator', deployed(idOf('AWS::Kinesis::Stream', 'OrderProjectionStream')).attributes.Arn],
  ['orders-table-iterator', ORDERS_TABLE_STREAM],
]);

type Call = readonly [service: AwsService, operation: string, input: RequestInput];

const FUNCTIONS = {
  'page-view-counter': 'PageViewCounterFunction',
  'order-projection': 'OrderProjectionFunction',
  'shipment-notifier': 'ShipmentNotifierFunction',
  'invoice-payments': 'InvoicePaymentsFunction',
} as const;
type Consumer = keyof typeof FUNCTIONS;

/** What each function's runtime calls, and its event source mapping on its behalf. */
const CALLS: Readonly<Record<Consumer, readonly Call[]>> = {
  'page-view-counter': [
    ['dynamodb', 'TransactWriteItems', { TransactItems: [{ Put: { TableName: T.dedup, Item: {} } }, { Update: { TableName: T.counters, Key: {} } }] }],
    ['dynamodb', 'BatchGetItem', { RequestItems: { [T.dedup]: { Keys: [] } } }],
    ['sqs', 'SendMessage', { QueueUrl: Q.pageViewsDlq, MessageBody: '{}' }],
    ['sqs', 'ChangeMessageVisibilityBatch', { QueueUrl: Q.pageViews, Entries: [] }],
    ['sqs', 'ReceiveMessage', { QueueUrl: Q.pageViews }],
    ['sqs', 'DeleteMessageBatch', { QueueUrl: Q.pageViews, Entries: [] }],
    ['sqs', 'GetQueueAttributes', { QueueUrl: Q.pageViews }],
  ],
  'order-projection': [
    ['dynamodb', 'PutItem', { TableName: T.orders, Item: {} }],
    ['sqs', 'SendMessage', { QueueUrl: Q.ordersDlq, MessageBody: '{}' }],
    ['kinesis', 'DescribeStreamSummary', { StreamName: ORDERS_STREAM }],
    ['kinesis', 'ListShards', { StreamName: ORDERS_STREAM }],
    ['kinesis', 'GetShardIterator', { StreamName: ORDERS_STREAM, ShardId: 'shardId-000000000000', ShardIteratorType: 'TRIM_HORIZON' }],
    ['kinesis', 'GetRecords', { ShardIterator: 'orders-iterator' }],
  ],
  'shipment-notifier': [
    ['dynamodb', 'PutItem', { TableName: T.dedup, Item: {} }],
    ['dynamodb', 'GetItem', { TableName: T.dedup, Key: {} }],
    ['dynamodb', 'UpdateItem', { TableName: T.dedup, Key: {} }],
    ['dynamodb', 'DeleteItem', { TableName: T.dedup, Key: {} }],
    ['sns', 'Publish', { TopicArn: NOTIFICATIONS, Message: 'shipped' }],
    ['sqs', 'SendMessage', { QueueUrl: Q.shipmentsDlq, MessageBody: '{}' }],
    ['dynamodb-streams', 'ListStreams', { TableName: T.orders }],
    ['dynamodb-streams', 'DescribeStream', { StreamArn: ORDERS_TABLE_STREAM }],
    ['dynamodb-streams', 'GetShardIterator', { StreamArn: ORDERS_TABLE_STREAM, ShardId: 's', ShardIteratorType: 'TRIM_HORIZON' }],
    ['dynamodb-streams', 'GetRecords', { ShardIterator: 'orders-table-iterator' }],
  ],
  // The SQL strategy's transaction through the Data API (the secret read as the caller, and
  // decrypted with the database's key through Secrets Manager), the DLQ, and the mapping's calls.
  'invoice-payments': [
    ...['BeginTransaction', 'ExecuteStatement', 'BatchExecuteStatement', 'CommitTransaction', 'RollbackTransaction'].map((operation): Call => ['rds-data', operation, { resourceArn: SQL.cluster, secretArn: SQL.secret, sql: 'SELECT 1' }]),
    ['sqs', 'SendMessage', { QueueUrl: SQL.paymentsDlq, MessageBody: '{}' }],
    ['sqs', 'ReceiveMessage', { QueueUrl: SQL.payments }],
    ['sqs', 'DeleteMessageBatch', { QueueUrl: SQL.payments, Entries: [] }],
    ['sqs', 'GetQueueAttributes', { QueueUrl: SQL.payments }],
  ],
};

/** What each function needs not, and must not, do. */
const FORBIDDEN: Readonly<Record<Consumer, readonly Call[]>> = {
  'page-view-counter': [
    ['sns', 'Publish', { TopicArn: NOTIFICATIONS, Message: 'x' }],
    ['dynamodb', 'PutItem', { TableName: T.orders, Item: {} }],
    ['sqs', 'SendMessage', { QueueUrl: Q.pageViews, MessageBody: 'x' }],
    ['sqs', 'ReceiveMessage', { QueueUrl: Q.pageViewsDlq }],
    ['kinesis', 'PutRecord', { StreamName: ORDERS_STREAM, Data: 'x', PartitionKey: 'k' }],
  ],
  'order-projection': [
    ['dynamodb', 'PutItem', { TableName: T.counters, Item: {} }],
    ['dynamodb', 'TransactWriteItems', { TransactItems: [{ Put: { TableName: T.dedup, Item: {} } }] }],
    ['kinesis', 'PutRecords', { StreamName: ORDERS_STREAM, Records: [] }],
    ['sqs', 'SendMessage', { QueueUrl: Q.pageViewsDlq, MessageBody: 'x' }],
    ['sns', 'Publish', { TopicArn: NOTIFICATIONS, Message: 'x' }],
  ],
  'shipment-notifier': [
    ['dynamodb', 'PutItem', { TableName: T.orders, Item: {} }],
    ['sns', 'Publish', { TopicArn: ALARMS, Message: 'x' }],
    ['kinesis', 'GetRecords', { ShardIterator: 'orders-iterator' }],
    ['sqs', 'SendMessage', { QueueUrl: Q.ordersDlq, MessageBody: 'x' }],
  ],
  'invoice-payments': [
    ['rds-data', 'ExecuteStatement', { resourceArn: SQL.cluster.replace(/cluster:.*/, 'cluster:another-cluster'), secretArn: SQL.secret, sql: 'SELECT 1' }],
    ['dynamodb', 'TransactWriteItems', { TransactItems: [{ Put: { TableName: T.dedup, Item: {} } }] }],
    ['sqs', 'SendMessage', { QueueUrl: Q.pageViewsDlq, MessageBody: 'x' }],
  ],
};

function call(policies: RolePolicies, consumer: Consumer, [service, operation, input]: Call, requestContext: RequestContext = TLS): AuthorizationResult {
  const principal = functionPrincipal(policies, idOf('AWS::Lambda::Function', FUNCTIONS[consumer]), { functionName: consumer, accountId: SCOPE.accountId });
  const permissions = requiredPermissions(service, operation, input, { ...SCOPE, topicKeys: policies.topicKeys, secretKeys: policies.secretKeys, streamArnOfToken: (token) => ITERATORS.get(token) });
  return authorize(policies, { service, principal, permissions, context: requestContext, requestId: 'request-1' });
}

const policies = compile(template);
const consumers = Object.keys(FUNCTIONS) as Consumer[];

test('the template compiles whole: every value resolves, every function has its role', () => {
  expect(policies.notes).toEqual([]);
  // The five consumers, the order projection's rebuilt generation, and the SQL migration's provider.
  expect(policies.functionRoles.size).toBe(7);
  expect(policies.topicKeys.get(NOTIFICATIONS)).toBe(keyArn('NotificationsTopicKey'));
  expect(policies.resourcePolicies.get(keyArn('NotificationsTopicKey'))?.kind).toBe('kms-key');
  // Each queue's: the six consumers' DLQs, the four sources, the SQL expiry's DLQ.
  expect([...policies.resourcePolicies.values()].filter((policy) => policy.kind === 'sqs-queue')).toHaveLength(10);
  expect(policies.secretKeys.get(SQL.secret)).toBe(keyArn('SqlEffectsKey'));
});

describe.each(consumers)('%s', (consumer) => {
  test.each(CALLS[consumer].map((request) => [request[1], request]))('may %s', (_, request) => {
    expect(call(policies, consumer, request)).toEqual({ allowed: true });
  });

  test.each(FORBIDDEN[consumer].map((request) => [request[1], request[2], request]))('may not %s %j', (_, __, request) => {
    expect(call(policies, consumer, request)).toMatchObject({ allowed: false, reason: 'no-allow', policyType: 'identity-based' });
  });
});

/** The template with one statement of a role's default policy taken out, or some of its actions. */
function without(roleId: string, edit: (statement: Record<string, unknown>, index: number) => Record<string, unknown> | undefined): Template {
  const copy = structuredClone(template) as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
  const policy = Object.values(copy.Resources).find((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]));
  const document = policy?.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] };
  document.Statement = document.Statement.flatMap((statement, index) => {
    const edited = edit(statement, index);
    return edited ? [edited] : [];
  });
  return copy as Template;
}

const roleOf = (consumer: Consumer): string => policies.functionRoles.get(idOf('AWS::Lambda::Function', FUNCTIONS[consumer])) ?? '';
const sessionArn = (consumer: Consumer): string => `arn:aws:sts::${SCOPE.accountId}:assumed-role/${SCOPE.stackName}-${roleOf(consumer)}/${consumer}`;

test('a grant taken out of the template refuses the call with the message DynamoDB sends', () => {
  const trimmed = compile(without(roleOf('page-view-counter'), (statement) => {
    const actions = statement.Action;
    return Array.isArray(actions) ? { ...statement, Action: actions.filter((action) => action !== 'dynamodb:BatchGetItem') } : statement;
  }));
  const table = `arn:aws:dynamodb:us-east-1:${SCOPE.accountId}:table/${T.dedup}`;
  expect(call(trimmed, 'page-view-counter', CALLS['page-view-counter'][1])).toMatchObject({
    allowed: false,
    action: 'dynamodb:BatchGetItem',
    resource: table,
    denial: {
      code: 'AccessDeniedException',
      status: 400,
      message: `User: ${sessionArn('page-view-counter')} is not authorized to perform: dynamodb:BatchGetItem on resource: ${table} because no identity-based policy allows the dynamodb:BatchGetItem action`,
    },
  });
  expect(call(trimmed, 'page-view-counter', CALLS['page-view-counter'][0])).toEqual({ allowed: true });
});

/** Each statement of each role but the log group's (local mode does not emulate CloudWatch Logs). */
const statements = consumers.flatMap((consumer) => {
  const policy = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles) === JSON.stringify([{ Ref: roleOf(consumer) }]));
  const list = (policy?.Properties?.PolicyDocument as { Statement: { Action: unknown }[] }).Statement;
  return list.flatMap((statement, index) => (JSON.stringify(statement.Action).includes('logs:') ? [] : [[consumer, index, JSON.stringify(statement.Action)] as const]));
});

test.each(statements)('%s needs its statement %i (%s) for one of its calls', (consumer, index) => {
  const trimmed = compile(without(roleOf(consumer), (statement, at) => (at === index ? undefined : statement)));
  expect(CALLS[consumer].some((request) => !call(trimmed, consumer, request).allowed)).toBe(true);
});

describe('the encrypted notifications topic', () => {
  const publish = CALLS['shipment-notifier'][4];

  test('without the kms statement, Publish is refused as SNS refuses it, naming kms:GenerateDataKey and the key', () => {
    const trimmed = compile(without(roleOf('shipment-notifier'), (statement) => (JSON.stringify(statement.Action).includes('kms:') ? undefined : statement)));
    const key = keyArn('NotificationsTopicKey');
    const result = call(trimmed, 'shipment-notifier', publish);
    expect(result).toMatchObject({ allowed: false, action: 'kms:GenerateDataKey', resource: key, reason: 'no-allow', policyType: 'identity-based' });
    expect(result).toMatchObject({
      denial: {
        service: 'sns',
        code: 'KMSAccessDenied',
        status: 400,
        message: `User: ${sessionArn('shipment-notifier')} is not authorized to perform: kms:GenerateDataKey on resource: ${key} because no identity-based policy allows the kms:GenerateDataKey action (Service: AWSKMS; Status Code: 400; Error Code: AccessDeniedException; Request ID: request-1; Proxy: null)`,
      },
    });
  });

  test('without sns:Publish, the refusal is SNS\'s AuthorizationError', () => {
    const trimmed = compile(without(roleOf('shipment-notifier'), (statement) => (statement.Action === 'sns:Publish' ? undefined : statement)));
    expect(call(trimmed, 'shipment-notifier', publish)).toMatchObject({
      denial: {
        code: 'AuthorizationError',
        status: 403,
        message: `User: ${sessionArn('shipment-notifier')} is not authorized to perform: SNS:Publish on resource: ${NOTIFICATIONS} because no identity-based policy allows the SNS:Publish action`,
      },
    });
  });
});

describe('the policies that enforce TLS (enforceSSL)', () => {
  const insecure: RequestContext = { 'aws:SecureTransport': 'false' };

  test('the topic policy refuses a publish without TLS', () => {
    expect(call(policies, 'shipment-notifier', CALLS['shipment-notifier'][4], insecure)).toMatchObject({
      allowed: false,
      reason: 'explicit-deny',
      policyType: 'resource-based',
      origin: { sid: 'AllowPublishThroughSSLOnly' },
      denial: { code: 'AuthorizationError', message: expect.stringMatching(/ with an explicit deny in a resource-based policy$/) },
    });
  });

  test.each(consumers)('the queue policies refuse %s\'s DLQ sends without TLS', (consumer) => {
    const send = CALLS[consumer].find((request) => request[1] === 'SendMessage') as Call;
    expect(call(policies, consumer, send, insecure)).toMatchObject({
      allowed: false,
      reason: 'explicit-deny',
      denial: { code: 'AccessDenied', status: 403, message: expect.stringContaining('is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:') },
    });
  });
});

describe('the SQL database\'s secret, under its customer-managed key', () => {
  const statement = CALLS['invoice-payments'][1] as Call;

  test('a Data API call needs kms:Decrypt on the key, through Secrets Manager only: without that statement it is refused, naming the key', () => {
    const trimmed = compile(without(roleOf('invoice-payments'), (granted) => (JSON.stringify(granted.Action).includes('kms:') ? undefined : granted)));
    expect(call(trimmed, 'invoice-payments', statement)).toMatchObject({ allowed: false, action: 'kms:Decrypt', resource: keyArn('SqlEffectsKey'), reason: 'no-allow' });
  });

  test('the grant does not let the function decrypt with the key itself, outside Secrets Manager', () => {
    const permissions = [{ action: 'kms:Decrypt', resource: keyArn('SqlEffectsKey'), context: { 'kms:CallerAccount': SCOPE.accountId } }];
    const principal = functionPrincipal(policies, idOf('AWS::Lambda::Function', FUNCTIONS['invoice-payments']), { functionName: 'invoice-payments', accountId: SCOPE.accountId });
    expect(authorize(policies, { service: AwsService.KMS, principal, permissions, context: TLS, requestId: 'request-2' })).toMatchObject({ allowed: false, action: 'kms:Decrypt' });
  });
});
