// Renders contract errors and lets the real AWS SDK clients parse them from a loopback server:
// what the SDK makes of the answer is what a function running in local mode will see.
import { DynamoDBClient, PutItemCommand, TransactWriteItemsCommand, type TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkRequest,
  CONTRACT_RULE_HEADER,
  renderError,
  TransactionConflictTracker,
  type AwsError,
  type CheckResult,
  type RenderedError,
  type WireProtocol,
} from '../../../emulator/contract';

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

let answer: RenderedError;
let server: Server;
let endpoint: string;
const config = () => ({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown> & Error> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown> & Error;
  }
  throw new Error('expected a rejection');
}

function serve(protocol: WireProtocol, error: AwsError): void {
  answer = renderError(protocol, error, 'req-1');
}

describe('renderError', () => {
  test('JSON: __type, the message key, the query error header and the rule', () => {
    const error = refusal(checkRequest('sqs', 'SendMessage', { MessageBody: '\u0000' }));
    const rendered = renderError('json10', error, 'req-1');

    expect(rendered.status).toBe(400);
    expect(rendered.headers).toMatchObject({
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': 'req-1',
      'x-amzn-query-error': 'InvalidMessageContents;Sender',
      [CONTRACT_RULE_HEADER]: 'sqs.message-body.characters',
    });
    expect(JSON.parse(rendered.body)).toEqual({ __type: 'com.amazonaws.sqs#InvalidMessageContents', message: error.message });
  });

  test('query: SNS’s XML ErrorResponse, escaped', () => {
    const error = { ...refusal(checkRequest('sns', 'Publish', { Message: '' })), message: 'a <b> & "c"' };
    expect(renderError('query', error, 'req-1').body).toBe(
      '<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>InvalidParameter</Code>' +
        '<Message>a &lt;b&gt; &amp; &quot;c&quot;</Message></Error><RequestId>req-1</RequestId></ErrorResponse>',
    );
  });
});

describe('the AWS SDK reads the rendered errors as AWS’s', () => {
  test('SQS InvalidParameterValue', async () => {
    serve('json10', refusal(checkRequest('sqs', 'SendMessage', { MessageBody: 'x', DelaySeconds: 901 })));
    const sqs = new SQSClient({ ...config(), useQueueUrlAsEndpoint: false });

    const error = await rejection(sqs.send(new SendMessageCommand({ QueueUrl: `${endpoint}/0/q`, MessageBody: 'x' })));

    expect(error.name).toBe('InvalidParameterValue');
    expect(error.message).toBe('Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.');
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'req-1' });
    sqs.destroy();
  });

  test('SQS batch errors by their modelled class', async () => {
    serve('json10', refusal(checkRequest('sqs', 'SendMessageBatch', { Entries: [{ Id: 'a', MessageBody: 'x' }, { Id: 'a', MessageBody: 'y' }] })));
    const sqs = new SQSClient({ ...config(), useQueueUrlAsEndpoint: false });

    const error = await rejection(sqs.send(new SendMessageBatchCommand({ QueueUrl: `${endpoint}/0/q`, Entries: [] })));

    expect(error.name).toBe('BatchEntryIdsNotDistinct');
    expect(error.message).toBe('Id a repeated.');
    sqs.destroy();
  });

  test('DynamoDB ValidationException and TransactionConflictException', async () => {
    const dynamodb = new DynamoDBClient(config());
    serve('json10', refusal(checkRequest('dynamodb', 'TransactWriteItems', {
      TransactItems: [{ Delete: { TableName: 't', Key: { pk: { N: '1' } } } }, { Delete: { TableName: 't', Key: { pk: { N: '1.0' } } } }],
    })));
    const invalid = await rejection(dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [] })));
    expect([invalid.name, invalid.message]).toEqual(['ValidationException', 'Transaction request cannot include multiple operations on one item']);

    const tracker = new TransactionConflictTracker();
    tracker.begin('TransactWriteItems', { TransactItems: [{ Delete: { TableName: 't', Key: { pk: { S: 'a' } } } }] });
    const decision = tracker.begin('UpdateItem', { TableName: 't', Key: { pk: { S: 'a' } } });
    if (decision.ok) throw new Error('expected a conflict');
    serve('json10', decision.error);
    const conflict = await rejection(dynamodb.send(new PutItemCommand({ TableName: 't', Item: { pk: { S: 'a' } } })));
    expect(conflict.name).toBe('TransactionConflictException');
    dynamodb.destroy();
  });

  test('DynamoDB TransactionCanceledException with its CancellationReasons', async () => {
    const tracker = new TransactionConflictTracker();
    const item = (pk: string) => ({ Update: { TableName: 't', Key: { pk: { S: pk } }, UpdateExpression: 'ADD n :one' } });
    tracker.begin('TransactWriteItems', { TransactItems: [item('a')] });
    const decision = tracker.begin('TransactWriteItems', { TransactItems: [item('b'), item('a')] });
    if (decision.ok) throw new Error('expected a conflict');
    serve('json10', decision.error);
    const dynamodb = new DynamoDBClient(config());

    const error = (await rejection(dynamodb.send(new TransactWriteItemsCommand({ TransactItems: [] })))) as unknown as TransactionCanceledException;

    expect(error.name).toBe('TransactionCanceledException');
    expect(error.message).toBe('Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]');
    expect(error.CancellationReasons).toEqual([{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item.' }]);
    dynamodb.destroy();
  });

  test('Kinesis InvalidArgumentException (JSON 1.1)', async () => {
    serve('json11', refusal(checkRequest('kinesis', 'PutRecords', { Records: [{ Data: Buffer.alloc(1_048_576).toString('base64'), PartitionKey: 'p' }] }, { kinesis: { maxRecordSizeKiB: 10_240, maxPutRecordsBytes: 1_048_576 } })));
    const kinesis = new KinesisClient({ ...config(), requestHandler: new NodeHttpHandler() });

    const error = await rejection(kinesis.send(new PutRecordsCommand({ StreamName: 's', Records: [{ Data: new Uint8Array(1), PartitionKey: 'p' }] })));

    expect([error.name, error.message]).toEqual(['InvalidArgumentException', 'Records size exceeds 1 MB limit']);
    kinesis.destroy();
  });

  test('SNS InvalidParameter (query protocol, XML)', async () => {
    serve('query', refusal(checkRequest('sns', 'Publish', { Message: 'm', Subject: 'two\nlines' })));
    const sns = new SNSClient(config());

    const error = await rejection(sns.send(new PublishCommand({ TopicArn: 'arn:aws:sns:us-east-1:000000000000:t', Message: 'm' })));

    expect([error.name, error.message]).toEqual(['InvalidParameterException', 'Invalid parameter: Subject']);
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'req-1' });
    sns.destroy();
  });
});
