/** What each request the runtime, the event source mappings and the DLQ tooling make needs from IAM. */
import { requiredPermissions, UnknownResourceError, UnsupportedOperationError, type PermissionLookups } from '../../../emulator/iam';

const SCOPE = { region: 'us-east-1', accountId: '123456789012' } as const;
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/page-views';
const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:page-views';
const COUNTERS = 'arn:aws:dynamodb:us-east-1:123456789012:table/counters';
const DEDUP = 'arn:aws:dynamodb:us-east-1:123456789012:table/dedup';
const STREAM = 'arn:aws:kinesis:us-east-1:123456789012:stream/orders';
const ORDERS_STREAM = 'arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2024-01-01T00:00:00.000';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:notifications';
const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('SQS: a batch is authorized as its single-message action, on the queue ARN', () => {
  test.each([
    ['SendMessage', 'sqs:SendMessage'],
    ['SendMessageBatch', 'sqs:SendMessage'],
    ['ReceiveMessage', 'sqs:ReceiveMessage'],
    ['DeleteMessage', 'sqs:DeleteMessage'],
    ['DeleteMessageBatch', 'sqs:DeleteMessage'],
    ['ChangeMessageVisibility', 'sqs:ChangeMessageVisibility'],
    ['ChangeMessageVisibilityBatch', 'sqs:ChangeMessageVisibility'],
    ['GetQueueAttributes', 'sqs:GetQueueAttributes'],
  ])('%s needs %s', (operation, action) => {
    expect(requiredPermissions('sqs', operation, { QueueUrl: QUEUE_URL }, SCOPE)).toEqual([{ action, resource: QUEUE }]);
  });

  test('GetQueueUrl is authorized on the named queue, in the owner account when given', () => {
    expect(requiredPermissions('sqs', 'GetQueueUrl', { QueueName: 'page-views' }, SCOPE)).toEqual([{ action: 'sqs:GetQueueUrl', resource: QUEUE }]);
    expect(requiredPermissions('sqs', 'GetQueueUrl', { QueueName: 'q', QueueOwnerAWSAccountId: '999999999999' }, SCOPE)[0].resource).toBe('arn:aws:sqs:us-east-1:999999999999:q');
  });

  test.each([
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/q', 'arn:aws:sqs:eu-west-1:123456789012:q'],
    ['http://sqs.us-east-1.localhost:4566/000000000000/q', 'arn:aws:sqs:us-east-1:000000000000:q'], // fauxqs
    ['https://eu-west-2.queue.amazonaws.com/123456789012/q', 'arn:aws:sqs:eu-west-2:123456789012:q'], // legacy
    ['http://127.0.0.1:4566/000000000000/q', 'arn:aws:sqs:us-east-1:000000000000:q'], // no region in the host: the scope's
  ])('the queue URL %s is the queue %s', (url, arn) => {
    expect(requiredPermissions('sqs', 'SendMessage', { QueueUrl: url }, SCOPE)[0].resource).toBe(arn);
  });

  test('the contract layer may map URLs to the engines\' ARNs itself', () => {
    const lookups: PermissionLookups = { ...SCOPE, queueArn: (url) => (url === QUEUE_URL ? 'arn:local:q' : undefined) };
    expect(requiredPermissions('sqs', 'SendMessage', { QueueUrl: QUEUE_URL }, lookups)[0].resource).toBe('arn:local:q');
  });
});

describe('DynamoDB', () => {
  test.each(['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'DescribeTable', 'Query', 'Scan'])('%s needs its own action on the table', (operation) => {
    expect(requiredPermissions('dynamodb', operation, { TableName: 'counters' }, SCOPE)).toEqual([{ action: `dynamodb:${operation}`, resource: COUNTERS }]);
  });

  test.each(['Query', 'Scan'])('%s of an index is authorized on the index', (operation) => {
    expect(requiredPermissions('dynamodb', operation, { TableName: 'counters', IndexName: 'byPage' }, SCOPE)).toEqual([{ action: `dynamodb:${operation}`, resource: `${COUNTERS}/index/byPage` }]);
  });

  test.each(['BatchGetItem', 'BatchWriteItem'])('%s needs its action on every table it touches', (operation) => {
    expect(requiredPermissions('dynamodb', operation, { RequestItems: { counters: {}, dedup: {} } }, SCOPE)).toEqual([
      { action: `dynamodb:${operation}`, resource: COUNTERS },
      { action: `dynamodb:${operation}`, resource: DEDUP },
    ]);
  });

  test('TransactWriteItems needs each item\'s own action on its table, once each', () => {
    const TransactItems = [
      { Put: { TableName: 'dedup', Item: {} } },
      { Update: { TableName: 'counters', Key: {} } },
      { Put: { TableName: 'dedup', Item: {} } },
      { Delete: { TableName: 'counters', Key: {} } },
      { ConditionCheck: { TableName: 'dedup', Key: {} } },
    ];
    expect(requiredPermissions('dynamodb', 'TransactWriteItems', { TransactItems }, SCOPE)).toEqual([
      { action: 'dynamodb:PutItem', resource: DEDUP },
      { action: 'dynamodb:UpdateItem', resource: COUNTERS },
      { action: 'dynamodb:DeleteItem', resource: COUNTERS },
      { action: 'dynamodb:ConditionCheckItem', resource: DEDUP },
    ]);
  });

  test('TransactGetItems needs GetItem on each table', () => {
    expect(requiredPermissions('dynamodb', 'TransactGetItems', { TransactItems: [{ Get: { TableName: 'dedup' } }] }, SCOPE)).toEqual([{ action: 'dynamodb:GetItem', resource: DEDUP }]);
  });

  test('a table ARN in TableName stays as it is; the contract layer may give the engine\'s ARNs', () => {
    expect(requiredPermissions('dynamodb', 'GetItem', { TableName: COUNTERS }, SCOPE)[0].resource).toBe(COUNTERS);
    const local = 'arn:aws:dynamodb:ddblocal:000000000000:table/counters';
    expect(requiredPermissions('dynamodb', 'GetItem', { TableName: 'counters' }, { ...SCOPE, tableArn: () => local })[0].resource).toBe(local);
  });
});

describe('streams', () => {
  test.each(['PutRecord', 'PutRecords', 'GetShardIterator', 'DescribeStream', 'DescribeStreamSummary', 'ListShards'])('Kinesis %s needs its action on the stream, by name or ARN', (operation) => {
    expect(requiredPermissions('kinesis', operation, { StreamName: 'orders' }, SCOPE)).toEqual([{ action: `kinesis:${operation}`, resource: STREAM }]);
    expect(requiredPermissions('kinesis', operation, { StreamARN: STREAM }, SCOPE)).toEqual([{ action: `kinesis:${operation}`, resource: STREAM }]);
  });

  test('Kinesis GetRecords and a ListShards continuation are authorized on the stream their token came from', () => {
    const lookups: PermissionLookups = { ...SCOPE, streamArnOfToken: (token) => (token === 'iterator-1' || token === 'next-1' ? STREAM : undefined) };
    expect(requiredPermissions('kinesis', 'GetRecords', { ShardIterator: 'iterator-1' }, lookups)).toEqual([{ action: 'kinesis:GetRecords', resource: STREAM }]);
    expect(requiredPermissions('kinesis', 'ListShards', { NextToken: 'next-1' }, lookups)).toEqual([{ action: 'kinesis:ListShards', resource: STREAM }]);
    expect(() => requiredPermissions('kinesis', 'GetRecords', { ShardIterator: 'unknown' }, lookups)).toThrow(UnknownResourceError);
  });

  test.each(['DescribeStream', 'GetShardIterator'])('DynamoDB Streams %s needs dynamodb:%s on the stream', (operation) => {
    expect(requiredPermissions('dynamodb-streams', operation, { StreamArn: ORDERS_STREAM }, SCOPE)).toEqual([{ action: `dynamodb:${operation}`, resource: ORDERS_STREAM }]);
  });

  test('DynamoDB Streams GetRecords is authorized on its iterator\'s stream, ListStreams on *', () => {
    const lookups: PermissionLookups = { ...SCOPE, streamArnOfToken: () => ORDERS_STREAM };
    expect(requiredPermissions('dynamodb-streams', 'GetRecords', { ShardIterator: 'x' }, lookups)).toEqual([{ action: 'dynamodb:GetRecords', resource: ORDERS_STREAM }]);
    expect(requiredPermissions('dynamodb-streams', 'ListStreams', { TableName: 'orders' }, SCOPE)).toEqual([{ action: 'dynamodb:ListStreams', resource: '*' }]);
  });
});

describe('SNS', () => {
  test('Publish needs sns:Publish on the topic', () => {
    expect(requiredPermissions('sns', 'Publish', { TopicArn: TOPIC, Message: 'm' }, SCOPE)).toEqual([{ action: 'sns:Publish', resource: TOPIC }]);
  });

  test.each(['Publish', 'PublishBatch'])('%s to an encrypted topic also needs kms:GenerateDataKey and kms:Decrypt on its key, which SNS asks for on the publisher\'s behalf', (operation) => {
    const viaSns = { 'aws:ViaAWSService': 'true', 'kms:ViaService': 'sns.us-east-1.amazonaws.com', 'kms:CallerAccount': '123456789012', 'kms:GrantIsForAWSResource': null };
    expect(requiredPermissions('sns', operation, { TopicArn: TOPIC }, { ...SCOPE, topicKeys: new Map([[TOPIC, KEY]]) })).toEqual([
      { action: 'sns:Publish', resource: TOPIC },
      { action: 'kms:GenerateDataKey', resource: KEY, context: viaSns },
      { action: 'kms:Decrypt', resource: KEY, context: viaSns },
    ]);
  });
});

describe('S3: bucket operations on the bucket, object operations on the object, a version with its own action', () => {
  const BUCKET = 'arn:aws:s3:::archive';
  const OBJECT = 'arn:aws:s3:::archive/aws/lambda/batch.json';
  const bucket = { Bucket: 'archive' };
  const object = { Bucket: 'archive', Key: 'aws/lambda/batch.json' };
  const actionsOf = (operation: string, input: Record<string, unknown>) => requiredPermissions('s3', operation, input, SCOPE).map(({ action, resource }) => [action, resource]);

  test.each([
    ['ListBuckets', {}, [['s3:ListAllMyBuckets', '*']]],
    ['CreateBucket', bucket, [['s3:CreateBucket', BUCKET]]],
    ['PutBucketVersioning', bucket, [['s3:PutBucketVersioning', BUCKET]]],
    ['HeadBucket', bucket, [['s3:ListBucket', BUCKET]]],
    ['ListObjects', bucket, [['s3:ListBucket', BUCKET]]],
    ['ListObjectsV2', bucket, [['s3:ListBucket', BUCKET]]],
    ['DeleteBucket', bucket, [['s3:DeleteBucket', BUCKET]]],
    ['PutObject', object, [['s3:PutObject', OBJECT]]],
    ['PutObject', { ...object, SetsAcl: true, SetsTagging: true }, [['s3:PutObject', OBJECT], ['s3:PutObjectAcl', OBJECT], ['s3:PutObjectTagging', OBJECT]]],
    ['UploadPart', object, [['s3:PutObject', OBJECT]]],
    ['CreateMultipartUpload', object, [['s3:PutObject', OBJECT]]],
    ['CompleteMultipartUpload', object, [['s3:PutObject', OBJECT]]],
    ['AbortMultipartUpload', object, [['s3:AbortMultipartUpload', OBJECT]]],
    ['GetObject', object, [['s3:GetObject', OBJECT]]],
    ['GetObject', { ...object, VersionId: 'v1' }, [['s3:GetObjectVersion', OBJECT]]],
    ['HeadObject', object, [['s3:GetObject', OBJECT]]],
    ['DeleteObject', object, [['s3:DeleteObject', OBJECT]]],
    ['DeleteObject', { ...object, VersionId: 'v1' }, [['s3:DeleteObjectVersion', OBJECT]]],
    ['CopyObject', { ...object, CopySource: { Bucket: 'source', Key: 'k', VersionId: 'v1' } }, [['s3:PutObject', OBJECT], ['s3:GetObjectVersion', 'arn:aws:s3:::source/k']]],
    ['DeleteObjects', { ...bucket, Objects: [{ Key: 'a' }, { Key: 'b', VersionId: 'v1' }] }, [['s3:DeleteObject', `${BUCKET}/a`], ['s3:DeleteObjectVersion', `${BUCKET}/b`]]],
  ])('%s %j needs %j', (operation, input, permissions) => {
    expect(actionsOf(operation, input)).toEqual(permissions);
  });

  test('each permission carries the request\'s S3 condition keys, and s3:ResourceAccount (local buckets are the account\'s)', () => {
    const [permission] = requiredPermissions('s3', 'PutObject', { ...object, ConditionKeys: { 's3:x-amz-acl': null, 's3:authType': 'REST-HEADER' } }, SCOPE);
    expect(permission?.context).toEqual({ 's3:ResourceAccount': '123456789012', 's3:x-amz-acl': null, 's3:authType': 'REST-HEADER' });
  });
});

describe('Lambda', () => {
  const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:notifier';

  test.each([
    ['a name', 'notifier', undefined, FUNCTION],
    ['a full ARN', FUNCTION, undefined, FUNCTION],
    ['a partial ARN', '123456789012:function:notifier', undefined, FUNCTION],
    ['an ARN in another account', 'arn:aws:lambda:eu-west-1:999999999999:function:notifier', undefined, 'arn:aws:lambda:eu-west-1:999999999999:function:notifier'],
    ['a name with an alias', 'notifier:live', undefined, `${FUNCTION}:live`],
    ['a name and the Qualifier parameter', 'notifier', '$LATEST', `${FUNCTION}:$LATEST`],
  ])('Invoke of %s needs lambda:InvokeFunction on %s', (_, FunctionName, Qualifier, resource) => {
    expect(requiredPermissions('lambda', 'Invoke', { FunctionName, Qualifier }, SCOPE)).toEqual([{ action: 'lambda:InvokeFunction', resource }]);
  });
});

describe('what it cannot map is refused, never allowed', () => {
  test.each([
    ['sqs', 'DeleteQueue'],
    ['dynamodb', 'DeleteTable'],
    ['kinesis', 'DeleteStream'],
    ['sns', 'Subscribe'],
    ['kms', 'Decrypt'],
    ['lambda', 'InvokeAsync'],
    ['s3', 'PutBucketPolicy'],
  ] as const)('%s %s is an unsupported operation', (service, operation) => {
    expect(() => requiredPermissions(service, operation, {}, SCOPE)).toThrow(UnsupportedOperationError);
    expect(() => requiredPermissions(service, operation, {}, SCOPE)).toThrow(`local mode does not know which IAM actions ${service} ${operation} needs; the request is refused`);
  });

  test.each([
    ['sqs', 'SendMessage', {}, 'the request has no QueueUrl'],
    ['sqs', 'SendMessage', { QueueUrl: 'not a url' }, 'not a url is not a queue URL'],
    ['dynamodb', 'PutItem', { Item: {} }, 'the request has no TableName'],
    ['kinesis', 'PutRecord', { Data: 'x' }, 'the request names no stream'],
    ['sns', 'Publish', { Message: 'm' }, 'the request has no TopicArn, TargetArn or PhoneNumber'],
    ['lambda', 'Invoke', {}, 'the request has no FunctionName'],
    ['lambda', 'Invoke', { FunctionName: 'two words' }, "Value 'two words' at 'functionName' failed to satisfy constraint"],
    ['s3', 'PutObject', { Key: 'k' }, 'the request names no bucket'],
    ['s3', 'GetObject', { Bucket: 'b' }, 'the request names no object key'],
    ['s3', 'DeleteObjects', { Bucket: 'b', Objects: [] }, 'the request names no object to delete'],
    ['s3', 'CopyObject', { Bucket: 'b', Key: 'k' }, 'the request names no copy source'],
  ] as const)('%s %s without its resource is refused', (service, operation, input, message) => {
    expect(() => requiredPermissions(service, operation, input, SCOPE)).toThrow(message);
  });
});
