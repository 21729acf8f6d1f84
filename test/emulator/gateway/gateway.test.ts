/**
 * The contract layer's gateway between clients and an engine: who signed a request, what it is
 * (S3 included, on the port fauxqs serves it on), IAM for a function's calls with the request
 * context AWS builds, the request rules, SQS batch entries failed alone, DynamoDB's transaction
 * conflicts, and what it learns from answers. The engine is a stub HTTP server that records what
 * reaches it and answers as told: what is under test is what the gateway lets through and what it
 * answers itself. The clients are the real AWS SDK v3 clients, so the answers must parse as AWS's.
 */
import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ChangeMessageVisibilityBatchCommand, ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines';
import { ContractLayer } from '../../../emulator/gateway/contract-layer';
import { CallerDirectory, functionCredentials } from '../../../emulator/gateway/credentials';
import { EngineFacts } from '../../../emulator/gateway/engine-facts';
import { startGatewayServer, type GatewayServer } from '../../../emulator/gateway/gateway-server';
import { IamGuard } from '../../../emulator/gateway/iam-guard';
import { compileRolePolicies, deployedResolveContext, functionPrincipal, type RolePolicies } from '../../../emulator/iam';
import { resolveValue } from '../../../aws/cloudformation/intrinsics';
import type { Template } from '../../../aws/cloudformation/template';

/** A stub engine: records each request's target, body, method and path, answers with `answer(target, body)`. */
class StubEngine {
  public readonly received: { target: string; body: Record<string, unknown>; method?: string; url?: string }[] = [];
  public answer: (target: string, body: Record<string, unknown>) => unknown = () => ({});
  public hold: Promise<void> = Promise.resolve();
  private server: Server | undefined;

  public async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  public stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server?.closeAllConnections();
      this.server?.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target']);
    const text = Buffer.concat(chunks).toString();
    const body = (req.headers['x-amz-target'] === undefined ? { raw: text } : JSON.parse(text || '{}')) as Record<string, unknown>;
    this.received.push({ target, body, method: req.method, url: req.url });
    await this.hold;
    const answer = JSON.stringify(this.answer(target, body));
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(answer) }).end(answer);
  }
}

const QUEUE_URL = 'http://sqs.us-east-1.localhost:9999/000000000000/page-views';

/** The SQS client checks each body's MD5 in the answer, as SQS computes it. */
const md5 = (text: unknown): string => createHash('md5').update(String(text)).digest('hex');
const sent = (body: Record<string, unknown>) => ({ MessageId: 'm-1', MD5OfMessageBody: md5(body.MessageBody) });

let engine: StubEngine;
let engineEndpoint: string;
let gateway: GatewayServer;
let layer: ContractLayer;
let callers: CallerDirectory;
const refusals: string[] = [];
/** The layer's clock, for SQS's 12-hour visibility cap; nothing else here reads it. */
let nowMs = 0;

beforeEach(async () => {
  engine = new StubEngine();
  const endpoint = (engineEndpoint = await engine.start());
  callers = new CallerDirectory('refuse');
  nowMs = 0;
  layer = new ContractLayer({ callers, facts: new EngineFacts({}), onRefusal: (line) => refusals.push(line), now: () => nowMs });
  gateway = await startGatewayServer({ layer, engine: endpoint });
  refusals.length = 0;
});
afterEach(async () => {
  await gateway.stop();
  await engine.stop();
});

const admin = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
const sqs = (credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS) => new SQSClient({ ...admin, credentials, endpoint: gateway.endpoint, useQueueUrlAsEndpoint: false, maxAttempts: 1 });
const dynamodb = () => new DynamoDBClient({ ...admin, endpoint: gateway.endpoint, maxAttempts: 1 });

describe('request rules', () => {
  test('a message SQS would refuse never reaches the engine; the client gets SQS\'s error', async () => {
    const send = sqs().send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'ok', MessageAttributes: { note: { DataType: 'String', StringValue: 'a\u0000b' } } }));
    await expect(send).rejects.toMatchObject({ name: 'InvalidParameterValue', $metadata: { httpStatusCode: 400 } });
    expect(engine.received).toEqual([]);
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 1, byRule: expect.objectContaining({}) });
    expect(refusals).toEqual([expect.stringContaining('sqs:SendMessage refused by sqs.')]);
  });

  test('a batch entry SQS would fail alone is answered as Failed; the others reach the engine', async () => {
    engine.answer = (_target, body) => ({ Successful: (body.Entries as { Id: string; MessageBody: string }[]).map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: md5(entry.MessageBody) })), Failed: [] });
    const result = await sqs().send(new SendMessageBatchCommand({ QueueUrl: QUEUE_URL, Entries: [{ Id: 'good', MessageBody: 'fine' }, { Id: 'bad', MessageBody: 'x', DelaySeconds: 901 }] }));
    expect(result.Successful?.map((entry) => entry.Id)).toEqual(['good']);
    expect(result.Failed).toEqual([expect.objectContaining({ Id: 'bad', SenderFault: true, Code: 'InvalidParameterValue' })]);
    expect((engine.received[0]?.body.Entries as { Id: string }[]).map((entry) => entry.Id)).toEqual(['good']);
    expect(layer.stats().rejected).toBe(1);
  });

  test('a batch whose every entry SQS would fail is answered by the layer: 200, all Failed, nothing sent to the engine', async () => {
    const result = await sqs().send(new SendMessageBatchCommand({ QueueUrl: QUEUE_URL, Entries: [{ Id: 'late', MessageBody: 'x', DelaySeconds: 901 }, { Id: 'later', MessageBody: 'y', DelaySeconds: 902 }] }));
    expect(result.Successful).toEqual([]);
    expect(result.Failed?.map((entry) => [entry.Id, entry.Code, entry.SenderFault])).toEqual([['late', 'InvalidParameterValue', true], ['later', 'InvalidParameterValue', true]]);
    expect(engine.received).toEqual([]);
  });

  test('a valid request passes as it is', async () => {
    engine.answer = (_target, body) => sent(body);
    await expect(sqs().send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'hello' }))).resolves.toMatchObject({ MessageId: 'm-1' });
    expect(engine.received).toHaveLength(1);
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 0 });
  });
});

describe('SQS\'s 12-hour visibility cap, from the receive the gateway saw', () => {
  const received = (...handles: string[]) => ({ Messages: handles.map((handle) => ({ MessageId: `m-${handle}`, ReceiptHandle: handle, Body: 'b', MD5OfBody: md5('b') })) });

  async function receive(...handles: string[]): Promise<void> {
    engine.answer = () => received(...handles);
    await sqs().send(new ReceiveMessageCommand({ QueueUrl: QUEUE_URL, MaxNumberOfMessages: 10 }));
    engine.received.length = 0;
    engine.answer = () => ({});
  }

  test('43200 s a second after the receive is refused with SQS\'s error and never reaches the engine; 43199 s passes', async () => {
    await receive('rh-1');
    nowMs = 1_000;
    const change = (VisibilityTimeout: number) => sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1', VisibilityTimeout }));
    await expect(change(43_200)).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: 'Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
      $metadata: { httpStatusCode: 400 },
    });
    expect(engine.received).toEqual([]);
    expect(refusals).toEqual([expect.stringContaining('sqs:ChangeMessageVisibility refused by sqs.visibility-timeout.total')]);
    await change(43_199);
    expect(engine.received).toHaveLength(1);
  });

  test('in a batch the entry past the cap fails alone; the others reach the engine', async () => {
    await receive('rh-1', 'rh-2');
    nowMs = 2 * 3_600_000;
    engine.answer = (_target, body) => ({ Successful: (body.Entries as { Id: string }[]).map(({ Id }) => ({ Id })), Failed: [] });
    const result = await sqs().send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: QUEUE_URL, Entries: [{ Id: 'long', ReceiptHandle: 'rh-1', VisibilityTimeout: 36_001 }, { Id: 'short', ReceiptHandle: 'rh-2', VisibilityTimeout: 36_000 }] }));
    expect(result.Successful?.map((entry) => entry.Id)).toEqual(['short']);
    expect(result.Failed).toEqual([expect.objectContaining({ Id: 'long', SenderFault: true, Code: 'InvalidParameterValue' })]);
    expect((engine.received[0]?.body.Entries as { Id: string }[]).map((entry) => entry.Id)).toEqual(['short']);
  });

  test('a deleted message\'s handle, and one the gateway never saw handed out, are left to the engine', async () => {
    await receive('rh-1');
    await sqs().send(new DeleteMessageCommand({ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1' }));
    nowMs = 1_000;
    for (const handle of ['rh-1', 'never-seen']) await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: QUEUE_URL, ReceiptHandle: handle, VisibilityTimeout: 43_200 }));
    expect(engine.received.map((request) => request.target)).toEqual(['AmazonSQS.DeleteMessage', 'AmazonSQS.ChangeMessageVisibility', 'AmazonSQS.ChangeMessageVisibility']);
  });
});

describe('who signed', () => {
  test('an access key that is neither the local account\'s nor a function\'s is refused, as AWS refuses an unknown key', async () => {
    const stranger = sqs({ accessKeyId: 'AKIASTRANGER', secretAccessKey: 'x' });
    await expect(stranger.send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'hi' }))).rejects.toMatchObject({ name: 'InvalidClientTokenId', $metadata: { httpStatusCode: 403 } });
    expect(engine.received).toEqual([]);
  });

  test('each function signs with credentials of its own, stable and distinct', () => {
    expect(functionCredentials('CounterFunction')).toEqual(functionCredentials('CounterFunction'));
    expect(functionCredentials('CounterFunction').accessKeyId).not.toBe(functionCredentials('NotifierFunction').accessKeyId);
    const { accessKeyId } = callers.register('CounterFunction');
    expect(callers.callerOf(accessKeyId)).toEqual({ kind: 'function', functionLogicalId: 'CounterFunction' });
    expect(callers.callerOf(LOCAL_CREDENTIALS.accessKeyId)).toEqual({ kind: 'admin' });
  });
});

describe('IAM for a function\'s calls', () => {
  /** No roles at all: what the real template's roles allow is tested on a local stack (test/emulator/stack/contract-iam.int.test.ts). */
  function policies(): RolePolicies {
    return { roles: new Map(), functionRoles: new Map(), resourcePolicies: new Map(), topicKeys: new Map(), secretKeys: new Map(), notes: [] };
  }

  test('an unevaluable call (no role known for the function) is refused, never let through', async () => {
    const credentials = callers.register('Orphan');
    layer.enforceIam(new IamGuard({ policies: policies(), principals: new Map(), lookups: { region: LOCAL_REGION, accountId: '000000000000' }, tokens: layer.tokens }));
    await expect(sqs(credentials).send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'hi' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      message: expect.stringContaining('no execution role is known for function Orphan'),
      $metadata: { httpStatusCode: 403 },
    });
    expect(engine.received).toEqual([]);
    expect(layer.stats()).toMatchObject({ iamChecks: 1, iamDenied: 1 });
  });

  test('the local account\'s own calls are not evaluated', async () => {
    layer.enforceIam(new IamGuard({ policies: policies(), principals: new Map(), lookups: { region: LOCAL_REGION, accountId: '000000000000' }, tokens: layer.tokens }));
    engine.answer = (_target, body) => sent(body);
    await expect(sqs().send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'hi' }))).resolves.toMatchObject({ MessageId: 'm-1' });
    expect(layer.stats().iamChecks).toBe(0);
  });
});

describe('DynamoDB transaction conflicts', () => {
  const increment = (id: string) => ({ Update: { TableName: 'counters', Key: { pk: { S: 'day#2026-12-01' } }, UpdateExpression: 'ADD #v :one', ExpressionAttributeNames: { '#v': 'views' }, ExpressionAttributeValues: { ':one': { N: '1' } } }, id });

  test('a transaction on an item another transaction holds is cancelled with TransactionConflict at that item', async () => {
    let release = () => undefined as void;
    engine.hold = new Promise<void>((resolve) => (release = resolve));
    const client = dynamodb();
    const first = client.send(new TransactWriteItemsCommand({ TransactItems: [{ Update: increment('a').Update }] }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = client.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: 'other', Item: { pk: { S: 'x' } } } }, { Update: increment('b').Update }] }));
    await expect(second).rejects.toMatchObject({ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] });
    release();
    await expect(first).resolves.toBeDefined();
    expect(engine.received).toHaveLength(1);
    expect(layer.stats()).toMatchObject({ transactionConflicts: 1, rejected: 0 });
  });

  test('once the first has answered, the item is free again', async () => {
    const client = dynamodb();
    await client.send(new TransactWriteItemsCommand({ TransactItems: [{ Update: increment('a').Update }] }));
    await client.send(new PutItemCommand({ TableName: 'counters', Item: { pk: { S: 'day#2026-12-01' } } }));
    expect(layer.stats().transactionConflicts).toBe(0);
  });
});

/** A stack of one function, `Counter` (role `counter-role`), whose role has `statements`; its calls are decided from now on. */
function enforceRole(statements: readonly Record<string, unknown>[]): { accessKeyId: string; secretAccessKey: string } {
  const template: Template = {
    Resources: {
      CounterRole: { Type: 'AWS::IAM::Role', Properties: { RoleName: 'counter-role' } },
      Counter: { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': ['CounterRole', 'Arn'] } } },
      Grants: { Type: 'AWS::IAM::Policy', Properties: { PolicyName: 'Grants', Roles: [{ Ref: 'CounterRole' }], PolicyDocument: { Version: '2012-10-17', Statement: statements } } },
    },
  };
  const context = deployedResolveContext(template, { stackName: 'S', region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  const rolePolicies = compileRolePolicies(template, (value) => resolveValue(value, context));
  const principals = new Map([['Counter', functionPrincipal(rolePolicies, 'Counter', { functionName: 'counter', accountId: LOCAL_ACCOUNT_ID })]]);
  layer.enforceIam(new IamGuard({ policies: rolePolicies, principals, lookups: { region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID }, tokens: layer.tokens }));
  return callers.register('Counter');
}

/** An `Authorization` header naming `accessKeyId`: the layer reads only the signature's key (the engines check none). */
const signedBy = (accessKeyId: string, service = 's3'): Record<string, string> => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20261201/${LOCAL_REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`,
});

const QUEUE_ARN = `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:page-views`;

describe('S3, on the port fauxqs serves it on: every request is attributed to a signer and decided', () => {
  let s3Gateway: GatewayServer;
  beforeEach(async () => {
    s3Gateway = await startGatewayServer({ layer, engine: engineEndpoint, rest: 's3' });
  });
  afterEach(() => s3Gateway.stop());
  const s3 = (credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS) => new S3Client({ region: LOCAL_REGION, credentials, endpoint: s3Gateway.endpoint, forcePathStyle: true, maxAttempts: 1 });
  const put = (Bucket: string, Key: string) => new PutObjectCommand({ Bucket, Key, Body: 'failed batch' });

  test('a PutObject signed with an unknown access key never reaches the engine: 403 InvalidAccessKeyId, as S3 answers', async () => {
    await expect(s3({ accessKeyId: 'AKIASTRANGER', secretAccessKey: 'x' }).send(put('archive', 'batch-1'))).rejects.toMatchObject({ name: 'InvalidAccessKeyId', $metadata: { httpStatusCode: 403 } });
    expect(engine.received).toEqual([]);
    expect(refusals).toEqual([expect.stringContaining('s3:PutObject refused: access key AKIASTRANGER')]);
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 1, byRule: { 'gateway.unrecognized-client': 1 } });
  });

  test('an unsigned PUT never reaches the engine: 403 AccessDenied (anonymous access is never let through)', async () => {
    const response = await fetch(`${s3Gateway.endpoint}/archive/batch-1`, { method: 'PUT', body: 'failed batch' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>AccessDenied</Code>');
    expect(engine.received).toEqual([]);
  });

  test('the local account\'s requests are read as S3 operations and pass, unevaluated', async () => {
    await s3().send(put('archive', 'a/b c.json'));
    expect(engine.received).toEqual([expect.objectContaining({ method: 'PUT', url: expect.stringMatching(/^\/archive\/a\/b%20c\.json/) })]);
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 0, iamChecks: 0 });
  });

  test('a function\'s requests are decided against its role as s3:* actions, with S3\'s own condition keys', async () => {
    const ownAccount = { StringEquals: { 's3:ResourceAccount': LOCAL_ACCOUNT_ID } };
    const credentials = enforceRole([{ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::archive/*', Condition: ownAccount }]);
    await s3(credentials).send(put('archive', 'batch-1'));
    await expect(s3(credentials).send(put('other', 'batch-1'))).rejects.toMatchObject({
      name: 'AccessDenied',
      message: 'User: arn:aws:sts::000000000000:assumed-role/counter-role/counter is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::other/batch-1 because no identity-based policy allows the s3:PutObject action',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(s3(credentials).send(new GetObjectCommand({ Bucket: 'archive', Key: 'batch-1' }))).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining('s3:GetObject on resource: arn:aws:s3:::archive/batch-1') });
    expect(engine.received).toHaveLength(1);
    expect(layer.stats()).toMatchObject({ iamChecks: 3, iamDenied: 2 });
  });

  test.each([
    ['PUT', '/archive/batch-1?acl', 'a flag fauxqs ignores (it would overwrite the object)'],
    ['POST', '/archive/batch-1', 'a POST on an object without an upload (fauxqs would delete objects)'],
    ['GET', '/archive/batch-1?uploadId=1', 'an operation fauxqs does not serve (ListParts)'],
    ['POST', '/archive?delete', 'a DeleteObjects that names no key'],
    ['PUT', '/archive/batch-1?partNumber=1', 'a part without its upload (fauxqs would put the object)'],
  ])('%s %s, %s, is refused, never forwarded: 403 AccessDenied', async (method, path) => {
    const response = await fetch(`${s3Gateway.endpoint}${path}`, { method, headers: signedBy(LOCAL_CREDENTIALS.accessKeyId), body: method === 'GET' ? undefined : '' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>AccessDenied</Code>');
    expect(engine.received).toEqual([]);
    expect(layer.stats()).toMatchObject({ rejected: 1, byRule: { 'gateway.unclassified-request': 1 } });
  });

  test('the object decided is the one the engine writes: a path is read raw, as fauxqs routes it, not normalized', async () => {
    const credentials = enforceRole([{ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::archive/aws/lambda/*' }]);
    const rawPut = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(s3Gateway.endpoint);
        const req = request({ hostname, port, method: 'PUT', path, headers: signedBy(credentials.accessKeyId) }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.once('error', reject);
        req.end('x');
      });
    // A URL parser would read this as archive/aws/lambda/x, which the role may write; fauxqs writes the key secret/../aws/lambda/x.
    expect(await rawPut('/archive/secret/../aws/lambda/x')).toBe(403);
    expect(await rawPut('/archive/aws/lambda/x')).toBe(200);
    expect(engine.received.map((received) => received.url)).toEqual(['/archive/aws/lambda/x']);
  });

  test('a flag is read as fauxqs reads it: an empty uploadId aborts no upload, it deletes the object', async () => {
    const credentials = enforceRole([{ Effect: 'Allow', Action: 's3:AbortMultipartUpload', Resource: 'arn:aws:s3:::archive/*' }]);
    const response = await fetch(`${s3Gateway.endpoint}/archive/batch-1?uploadId=`, { method: 'DELETE', headers: signedBy(credentials.accessKeyId) });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('s3:DeleteObject on resource: arn:aws:s3:::archive/batch-1');
    expect(engine.received).toEqual([]);
  });

  test('a DeleteObjects is decided on each key it names, read as the engine reads them', async () => {
    const credentials = enforceRole([{ Effect: 'Allow', Action: 's3:DeleteObject', Resource: 'arn:aws:s3:::archive/done/*' }]);
    const body = (...keys: string[]) => `<Delete>${keys.map((key) => `<Object><Key>${key}</Key></Object>`).join('')}</Delete>`;
    const deleteObjects = (...keys: string[]) => fetch(`${s3Gateway.endpoint}/archive?delete`, { method: 'POST', headers: signedBy(credentials.accessKeyId), body: body(...keys) });
    expect((await deleteObjects('done/1', 'done/2')).status).toBe(200);
    const refused = await deleteObjects('done/3', 'kept&amp;/4');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('s3:DeleteObject on resource: arn:aws:s3:::archive/kept&amp;/4');
    expect(engine.received).toHaveLength(1);
  });
});

describe('a request the gateway cannot classify is refused, never forwarded (fail closed)', () => {
  test.each([
    ['a JSON request for a service the gateway does not serve', { 'x-amz-target': 'AmazonSSM.GetParameter', 'content-type': 'application/x-amz-json-1.1' }, '{}', 'UnknownOperationException'],
    ['a form of a query API other than SNS\'s (STS)', { 'content-type': 'application/x-www-form-urlencoded' }, 'Action=GetCallerIdentity&Version=2011-06-15', '<Code>InvalidAction</Code>'],
    ['a REST request on a gateway that serves no REST API', {}, undefined, 'UnknownOperationException'],
  ])('%s: 400', async (_case, headers, body, code) => {
    const response = await fetch(`${gateway.endpoint}/`, { method: body === undefined ? 'GET' : 'POST', headers: { ...headers, ...signedBy(LOCAL_CREDENTIALS.accessKeyId, 'sts') }, body });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(code);
    expect(engine.received).toEqual([]);
    expect(refusals).toEqual([expect.stringContaining('local mode cannot tell which')]);
  });

  test.each([
    ['an SQS target on an S3 path (fauxqs would put the object)', 'PUT', '/archive/batch-1', 'application/x-amz-json-1.0'],
    ['an SQS target with a form body (fauxqs would run it as SNS)', 'POST', '/', 'application/x-www-form-urlencoded'],
  ])('a request whose target its route or body contradicts is refused, though the target is one the role allows: %s', async (_case, method, path, type) => {
    const credentials = enforceRole([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE_ARN }]);
    const body = JSON.stringify({ QueueUrl: QUEUE_URL, MessageBody: 'hi', x: '&Action=Publish&TopicArn=arn:aws:sns:us-east-1:000000000000:t&Version=2010-03-31' });
    const headers = { ...signedBy(credentials.accessKeyId, 'sqs'), 'x-amz-target': 'AmazonSQS.SendMessage', 'content-type': type };
    const response = await fetch(`${gateway.endpoint}${path}`, { method, headers, body });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('UnknownOperationException');
    expect(engine.received).toEqual([]);
    expect(layer.stats().iamChecks).toBe(0);
  });

  test('an unsigned one is refused for its signature first', async () => {
    const response = await fetch(`${gateway.endpoint}/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'Action=GetCallerIdentity&Version=2011-06-15' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>InvalidClientTokenId</Code>');
    expect(engine.received).toEqual([]);
  });
});

describe('the request context: the keys AWS always sets, and the keys local mode cannot know', () => {
  const sendAllowed = { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: QUEUE_ARN };
  const denyWhen = (Condition: Record<string, unknown>) => ({ Effect: 'Deny', Action: 'sqs:SendMessage', Resource: '*', Condition });
  const send = (credentials: { accessKeyId: string; secretAccessKey: string }) => sqs(credentials).send(new SendMessageCommand({ QueueUrl: QUEUE_URL, MessageBody: 'hi' }));
  beforeEach(() => {
    engine.answer = (_target, body) => sent(body);
  });

  test('a Deny on aws:RequestedRegion, the Region the request is signed for, denies', async () => {
    const credentials = enforceRole([sendAllowed, denyWhen({ StringEquals: { 'aws:RequestedRegion': LOCAL_REGION } })]);
    await expect(send(credentials)).rejects.toMatchObject({
      name: 'AccessDenied',
      message: `User: arn:aws:sts::000000000000:assumed-role/counter-role/counter is not authorized to perform: sqs:sendmessage on resource: ${QUEUE_ARN} with an explicit deny in an identity-based policy`,
      $metadata: { httpStatusCode: 403 },
    });
    expect(engine.received).toEqual([]);
  });

  test.each([
    [{ Bool: { 'aws:ViaAWSService': 'false' } }],
    [{ Bool: { 'aws:PrincipalIsAWSService': 'false' } }],
    [{ Bool: { 'aws:SecureTransport': 'true' } }],
    [{ StringEquals: { 'aws:PrincipalType': 'AssumedRole', 'aws:PrincipalAccount': LOCAL_ACCOUNT_ID } }],
    [{ ArnEquals: { 'aws:PrincipalArn': 'arn:aws:iam::000000000000:role/counter-role' } }],
    [{ StringLike: { 'aws:userid': 'AROA*:counter' } }],
    [{ NumericGreaterThan: { 'aws:EpochTime': '1700000000' } }],
    [{ StringLike: { 'aws:CurrentTime': '20*T*Z', 'aws:TokenIssueTime': '20*T*Z' } }],
    [{ StringEquals: { 'aws:SourceIp': '127.0.0.1' } }],
    [{ Bool: { 'aws:MultiFactorAuthPresent': 'false' } }],
  ])('a Deny on a key AWS always sets for a role session\'s own call denies: %j', async (condition) => {
    const credentials = enforceRole([sendAllowed, denyWhen(condition)]);
    await expect(send(credentials)).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining('with an explicit deny in an identity-based policy') });
  });

  test.each([
    [{ Null: { 'aws:SourceArn': 'false' } }],
    [{ StringEquals: { 'aws:username': 'counter' } }],
    [{ StringLike: { 'aws:CalledVia': '*' } }],
    [{ StringEquals: { 'aws:RequestTag/team': 'ledger' } }],
  ])('a Deny on a key AWS leaves out of such a call does not apply: %j', async (condition) => {
    const credentials = enforceRole([sendAllowed, denyWhen(condition)]);
    await expect(send(credentials)).resolves.toMatchObject({ MessageId: 'm-1' });
  });

  test('a Deny on a key local mode cannot know applies (fail closed), and the refusal says so', async () => {
    const credentials = enforceRole([sendAllowed, denyWhen({ StringEquals: { 'aws:PrincipalOrgID': 'o-example' } })]);
    const why = 'Grants statement 1 denies it if its condition on aws:PrincipalOrgID holds, which local mode cannot know: the Deny applies (fail closed)';
    await expect(send(credentials)).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining(`with an explicit deny in an identity-based policy (local mode: ${why})`) });
    expect(engine.received).toEqual([]);
    expect(refusals).toEqual([expect.stringContaining(why)]);
  });

  test('an Allow whose condition reads a key local mode cannot know does not allow', async () => {
    const credentials = enforceRole([{ ...sendAllowed, Condition: { StringEqualsIfExists: { 'aws:PrincipalTag/team': 'ledger' } } }]);
    await expect(send(credentials)).rejects.toMatchObject({ name: 'AccessDenied', message: expect.stringContaining('allows it only if its condition on aws:PrincipalTag/team holds, which local mode cannot know') });
    expect(engine.received).toEqual([]);
  });
});

describe('a request that names nothing to authorize', () => {
  const empty = (credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS) =>
    new DynamoDBClient({ region: LOCAL_REGION, credentials, endpoint: gateway.endpoint, maxAttempts: 1 }).send(new TransactWriteItemsCommand({ TransactItems: [] }));
  const validation = { name: 'ValidationException', message: "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1", $metadata: { httpStatusCode: 400 } };

  test('a function\'s TransactWriteItems without items is refused as DynamoDB refuses it, never forwarded', async () => {
    const credentials = enforceRole([{ Effect: 'Allow', Action: 'dynamodb:*', Resource: '*' }]);
    await expect(empty(credentials)).rejects.toMatchObject(validation);
    expect(engine.received).toEqual([]);
    expect(layer.stats()).toMatchObject({ rejected: 1, iamDenied: 0, byRule: { 'dynamodb.items.required': 1 } });
  });

  test('so is the local account\'s', async () => {
    await expect(empty()).rejects.toMatchObject(validation);
    expect(engine.received).toEqual([]);
  });
});
