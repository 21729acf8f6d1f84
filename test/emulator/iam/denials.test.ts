/**
 * Refusals as each service sends them, read back by the AWS SDK for JavaScript v3 itself: the
 * error name, message and status a function sees on AWS.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Readable } from 'node:stream';
import { awsDenial, notAuthorizedMessage, WireProtocol, type AwsDenial, type AwsService, type Refusal } from '../../../emulator/iam';

const SESSION = 'arn:aws:sts::123456789012:assumed-role/EffectivelyOnce-Role/page-view-counter';
const refusal = (action: string, resource: string, overrides: Partial<Refusal> = {}): Refusal => ({
  principalArn: SESSION,
  action,
  resource,
  reason: 'no-allow',
  policyType: 'identity-based',
  ...overrides,
});
const TABLE = 'arn:aws:dynamodb:us-east-1:123456789012:table/dedup';
const QUEUE = 'arn:aws:sqs:us-east-1:123456789012:dlq';
const TOPIC = 'arn:aws:sns:us-east-1:123456789012:notifications';
const KEY = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const STREAM = 'arn:aws:kinesis:us-east-1:123456789012:stream/orders';
const ARCHIVE_OBJECT = 'arn:aws:s3:::orders-archive/aws/lambda/x';
const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:notifier';

test.each([
  ['an implicit deny', refusal('dynamodb:BatchGetItem', TABLE), `User: ${SESSION} is not authorized to perform: dynamodb:BatchGetItem on resource: ${TABLE} because no identity-based policy allows the dynamodb:BatchGetItem action`],
  ['a resource-based Deny', refusal('sqs:SendMessage', QUEUE, { reason: 'explicit-deny', policyType: 'resource-based' }), `User: ${SESSION} is not authorized to perform: sqs:SendMessage on resource: ${QUEUE} with an explicit deny in a resource-based policy`],
  ['an identity-based Deny', refusal('sqs:SendMessage', QUEUE, { reason: 'explicit-deny' }), `User: ${SESSION} is not authorized to perform: sqs:SendMessage on resource: ${QUEUE} with an explicit deny in an identity-based policy`],
  ['a key policy without an Allow', refusal('kms:Decrypt', KEY, { policyType: 'resource-based' }), `User: ${SESSION} is not authorized to perform: kms:Decrypt on resource: ${KEY} because no resource-based policy allows the kms:Decrypt action`],
])('IAM words %s as AWS does', (_, given, message) => {
  expect(notAuthorizedMessage(given)).toBe(message);
});

test.each([
  // [service, action refused, resource, code, status, the action as the message writes it]
  ['dynamodb', 'dynamodb:PutItem', TABLE, 'AccessDeniedException', 400, 'dynamodb:PutItem'],
  ['dynamodb-streams', 'dynamodb:GetRecords', `${TABLE}/stream/x`, 'AccessDeniedException', 400, 'dynamodb:GetRecords'],
  ['sqs', 'sqs:SendMessage', QUEUE, 'AccessDenied', 403, 'sqs:sendmessage'],
  ['kinesis', 'kinesis:GetRecords', STREAM, 'AccessDeniedException', 400, 'kinesis:GetRecords'],
  ['sns', 'sns:Publish', TOPIC, 'AuthorizationError', 403, 'SNS:Publish'],
  ['sns', 'kms:GenerateDataKey', KEY, 'KMSAccessDenied', 400, 'kms:GenerateDataKey'],
  ['kms', 'kms:GenerateDataKey', KEY, 'AccessDeniedException', 400, 'kms:GenerateDataKey'],
  ['lambda', 'lambda:InvokeFunction', FUNCTION, 'AccessDeniedException', 403, 'lambda:InvokeFunction'],
] as const)('%s refuses %s on %s with %s, HTTP %i, naming %s', (service, action, resource, code, status, written) => {
  const denial = awsDenial(service, refusal(action, resource), { requestId: 'r-1' });
  expect(denial).toMatchObject({ service, code, status, headers: { 'x-amzn-requestid': 'r-1' } });
  expect(denial.message).toContain(`is not authorized to perform: ${written} on resource: ${resource} because no identity-based policy allows the ${written} action`);
});

test('SQS over the query protocol answers in XML, with the same code and message', () => {
  const denial = awsDenial('sqs', refusal('sqs:ReceiveMessage', QUEUE), { requestId: 'r-2', protocol: WireProtocol.QUERY });
  expect(denial).toMatchObject({ code: 'AccessDenied', status: 403, headers: { 'content-type': 'text/xml' } });
  expect(denial.body).toContain('<Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: ');
  expect(denial.body).toContain('<RequestId>r-2</RequestId>');
});

test('XML bodies escape the message', () => {
  expect(awsDenial('sns', refusal('sns:Publish', 'a<b>&"c"'), { requestId: 'r' }).body).toContain('a&lt;b&gt;&amp;&quot;c&quot;');
});

/** A client handler that answers every request with the denial, as the service would send it. */
function answering(denial: AwsDenial) {
  return {
    handle: async () => ({ response: { statusCode: denial.status, headers: denial.headers, body: Readable.from([Buffer.from(denial.body)]) } }),
  };
}

const CLIENT_CONFIG = { region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 };

async function sdkError(service: AwsService, send: (denial: AwsDenial) => Promise<unknown>, given: Refusal): Promise<{ name: string; message: string; status?: number }> {
  const denial = awsDenial(service, given, { requestId: 'sdk-1' });
  const error = (await send(denial).then(() => undefined, (thrown: unknown) => thrown)) as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
  return { name: error.name, message: error.message, status: error.$metadata?.httpStatusCode };
}

describe('the SDK reads each denial as the service\'s own error', () => {
  test('DynamoDB', async () => {
    const given = refusal('dynamodb:GetItem', TABLE);
    const send = (denial: AwsDenial) => new DynamoDBClient({ ...CLIENT_CONFIG, requestHandler: answering(denial) }).send(new GetItemCommand({ TableName: 'dedup', Key: {} }));
    expect(await sdkError('dynamodb', send, given)).toEqual({ name: 'AccessDeniedException', message: notAuthorizedMessage(given), status: 400 });
  });

  test('SQS (JSON protocol, query-compatible error code)', async () => {
    const given = refusal('sqs:SendMessage', QUEUE);
    const send = (denial: AwsDenial) => new SQSClient({ ...CLIENT_CONFIG, requestHandler: answering(denial) }).send(new SendMessageCommand({ QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq', MessageBody: 'x' }));
    expect(await sdkError('sqs', send, given)).toEqual({ name: 'AccessDenied', message: notAuthorizedMessage(given, (action) => action.toLowerCase()), status: 403 });
  });

  test('Kinesis', async () => {
    const given = refusal('kinesis:GetRecords', STREAM);
    const send = (denial: AwsDenial) => new KinesisClient({ ...CLIENT_CONFIG, requestHandler: answering(denial) }).send(new GetRecordsCommand({ ShardIterator: 'i' }));
    expect(await sdkError('kinesis', send, given)).toEqual({ name: 'AccessDeniedException', message: notAuthorizedMessage(given), status: 400 });
  });

  test('Lambda (REST-JSON, the code in x-amzn-errortype)', async () => {
    const given = refusal('lambda:InvokeFunction', FUNCTION);
    const send = (denial: AwsDenial) => new LambdaClient({ ...CLIENT_CONFIG, requestHandler: answering(denial) }).send(new InvokeCommand({ FunctionName: 'notifier' }));
    expect(await sdkError('lambda', send, given)).toEqual({ name: 'AccessDeniedException', message: notAuthorizedMessage(given), status: 403 });
  });

  test('S3 (REST XML, its own request id header)', async () => {
    const given = refusal('s3:PutObject', ARCHIVE_OBJECT);
    expect(awsDenial('s3', given, { requestId: 'r-1' })).toMatchObject({ code: 'AccessDenied', status: 403, headers: { 'x-amz-request-id': 'r-1' } });
    const send = (denial: AwsDenial) => new S3Client({ ...CLIENT_CONFIG, forcePathStyle: true, requestHandler: answering(denial) }).send(new PutObjectCommand({ Bucket: 'orders-archive', Key: 'aws/lambda/x', Body: 'x' }));
    expect(await sdkError('s3', send, given)).toEqual({ name: 'AccessDenied', message: notAuthorizedMessage(given), status: 403 });
  });

  test.each([
    ['sns:Publish', TOPIC, 'AuthorizationErrorException', 403],
    ['kms:GenerateDataKey', KEY, 'KMSAccessDeniedException', 400],
  ])('SNS refusing %s', async (action, resource, name, status) => {
    const given = refusal(action, resource);
    const send = (denial: AwsDenial) => new SNSClient({ ...CLIENT_CONFIG, requestHandler: answering(denial) }).send(new PublishCommand({ TopicArn: TOPIC, Message: 'x' }));
    const error = await sdkError('sns', send, given);
    expect(error).toMatchObject({ name, status });
    expect(error.message).toContain(`is not authorized to perform: ${action.replace('sns:', 'SNS:')} on resource: ${resource}`);
  });
});
