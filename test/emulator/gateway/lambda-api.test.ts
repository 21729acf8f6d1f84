/**
 * Lambda's Invoke API behind the contract layer, read by the real `@aws-sdk/client-lambda`: what
 * a client gets for a result, a function error, a function that does not exist, a payload over
 * Lambda's limits, an unknown key, and a function's role with or without `lambda:InvokeFunction`.
 * The functions are in-process invokers that answer as told (a LocalFunction's `InvokeResult`):
 * what is under test is the API and the layer; a stack's own functions answer in
 * test/emulator/stack/lambda-api.int.test.ts.
 */
import { InvokeCommand, LambdaClient, type InvokeCommandInput, type InvokeCommandOutput } from '@aws-sdk/client-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines';
import { ContractLayer } from '../../../emulator/gateway/contract-layer';
import { CallerDirectory } from '../../../emulator/gateway/credentials';
import { EngineFacts } from '../../../emulator/gateway/engine-facts';
import { startGatewayServer, type GatewayServer } from '../../../emulator/gateway/gateway-server';
import { IamGuard } from '../../../emulator/gateway/iam-guard';
import { startLambdaGateway } from '../../../emulator/gateway/lambda-gateway';
import { LocalLambdaService } from '../../../emulator/gateway/lambda-service';
import { compileRolePolicies, deployedResolveContext, functionPrincipal } from '../../../emulator/iam';
import type { InvokeResult, Invoker } from '../../../emulator/types';
import { resolveValue } from '../../../aws/cloudformation/intrinsics';
import type { Template } from '../../../aws/cloudformation/template';

const ARN = (name: string) => `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${name}`;

/** What each served function was handed, in order. */
const handed: unknown[] = [];
const answering = (result: (event: unknown) => InvokeResult): Invoker => async (event) => {
  handed.push(event);
  return result(event);
};
const FUNCTIONS = [
  { name: 'echo', invoke: answering((event) => ({ ok: true, response: { received: event }, durationMs: 1 })) },
  { name: 'thrower', invoke: answering(() => ({ ok: false, error: { kind: 'error', name: 'SchemaViolationError', message: 'payload.status: required' }, durationMs: 1 })) },
  { name: 'sleeper', invoke: answering(() => ({ ok: false, error: { kind: 'timeout', name: 'Sandbox.Timedout', message: 'Task timed out after 3.00 seconds' }, durationMs: 3000 })) },
  { name: 'verbose', invoke: answering(() => ({ ok: true, response: 'x'.repeat(6_291_556), durationMs: 1 })) },
];

let gateway: GatewayServer;
let layer: ContractLayer;
let callers: CallerDirectory;
const refusals: string[] = [];

beforeEach(async () => {
  handed.length = 0;
  refusals.length = 0;
  callers = new CallerDirectory('refuse');
  layer = new ContractLayer({ callers, facts: new EngineFacts({}), onRefusal: (line) => refusals.push(line) });
  const lambda = new LocalLambdaService({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  lambda.serve(FUNCTIONS);
  gateway = await startGatewayServer({ layer, answer: lambda.answer, rest: 'lambda' });
});
afterEach(() => gateway.stop());

function client(credentials: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS, endpoint = gateway.endpoint): LambdaClient {
  return new LambdaClient({ region: LOCAL_REGION, credentials, endpoint, maxAttempts: 1 });
}

async function invoke(input: InvokeCommandInput, lambda: LambdaClient = client()): Promise<InvokeCommandOutput> {
  try {
    return await lambda.send(new InvokeCommand(input));
  } finally {
    lambda.destroy();
  }
}

const payloadOf = (output: InvokeCommandOutput): unknown => JSON.parse(Buffer.from(output.Payload ?? []).toString('utf8'));

describe('a synchronous invocation', () => {
  test('runs the function with the payload and answers 200 with its result', async () => {
    const output = await invoke({ FunctionName: 'echo', Payload: JSON.stringify({ Records: [{ eventID: '1' }] }) });
    expect(output).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
    expect(output.FunctionError).toBeUndefined();
    expect(payloadOf(output)).toEqual({ received: { Records: [{ eventID: '1' }] } });
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 0 });
  });

  test.each([
    ['its full ARN', ARN('echo'), undefined],
    ['its partial ARN', `${LOCAL_ACCOUNT_ID}:function:echo`, undefined],
    ['its name and $LATEST', 'echo:$LATEST', undefined],
    ['its ARN and the Qualifier $LATEST', ARN('echo'), '$LATEST'],
  ])('names the function by %s', async (_, FunctionName, Qualifier) => {
    const output = await invoke({ FunctionName, Qualifier, Payload: '{"n":1}' });
    expect(payloadOf(output)).toEqual({ received: { n: 1 } });
  });

  test('without a payload hands the function nothing, which it gets as {} (the execution environment\'s rule)', async () => {
    await invoke({ FunctionName: 'echo' });
    expect(handed).toEqual([undefined]);
  });

  test('a function that throws is a 200 with X-Amz-Function-Error Unhandled and the error as the payload', async () => {
    const output = await invoke({ FunctionName: 'thrower', Payload: '{}' });
    expect(output).toMatchObject({ StatusCode: 200, FunctionError: 'Unhandled' });
    expect(payloadOf(output)).toEqual({ errorType: 'SchemaViolationError', errorMessage: 'payload.status: required' });
  });

  test('a timeout is a function error too', async () => {
    const output = await invoke({ FunctionName: 'sleeper', Payload: '{}' });
    expect(output.FunctionError).toBe('Unhandled');
    expect(payloadOf(output)).toEqual({ errorType: 'Sandbox.Timedout', errorMessage: 'Task timed out after 3.00 seconds' });
  });

  test('a response over 6,291,556 bytes is the function error Function.ResponseSizeTooLarge', async () => {
    const output = await invoke({ FunctionName: 'verbose', Payload: '{}' });
    expect(output.FunctionError).toBe('Unhandled');
    expect(payloadOf(output)).toEqual({ errorType: 'Function.ResponseSizeTooLarge', errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).' });
  });
});

describe('what keeps a function from running', () => {
  test.each([
    ['a name no function has', 'nobody', undefined, ARN('nobody')],
    ['a version local mode does not have', 'echo', '3', `${ARN('echo')}:3`],
    ['another account', `arn:aws:lambda:${LOCAL_REGION}:123456789012:function:echo`, undefined, `arn:aws:lambda:${LOCAL_REGION}:123456789012:function:echo`],
  ])('%s: 404 ResourceNotFoundException naming the ARN', async (_, FunctionName, Qualifier, arn) => {
    await expect(invoke({ FunctionName, Qualifier, Payload: '{}' })).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: `Function not found: ${arn}`, Type: 'User', $metadata: { httpStatusCode: 404 } });
    expect(handed).toEqual([]);
  });

  test('a payload over 6 MB: 413 RequestEntityTooLargeException, refused by the contract layer', async () => {
    const payload = JSON.stringify({ data: 'x'.repeat(6_291_456) });
    await expect(invoke({ FunctionName: 'echo', Payload: payload })).rejects.toMatchObject({
      name: 'RequestEntityTooLargeException',
      message: 'Request must be smaller than 6291456 bytes for the InvokeFunction operation',
      $metadata: { httpStatusCode: 413 },
    });
    expect(handed).toEqual([]);
    expect(layer.stats()).toMatchObject({ rejected: 1, byRule: { 'lambda.invoke.payload-size': 1 } });
  });

  test('"6 MB" is 6 MiB, as Lambda\'s message counts it: a payload of 6,000,001 bytes runs', async () => {
    const payload = JSON.stringify({ data: 'x'.repeat(6_000_001 - '{"data":""}'.length) });
    expect(Buffer.byteLength(payload)).toBe(6_000_001);
    await expect(invoke({ FunctionName: 'echo', Payload: payload })).resolves.toMatchObject({ StatusCode: 200 });
  });

  test('a payload that is not JSON: 400 InvalidRequestContentException', async () => {
    await expect(invoke({ FunctionName: 'echo', Payload: 'not json' })).rejects.toMatchObject({ name: 'InvalidRequestContentException', $metadata: { httpStatusCode: 400 } });
    expect(handed).toEqual([]);
  });

  test('a name outside Lambda\'s pattern: 400 ValidationException', async () => {
    await expect(invoke({ FunctionName: 'no spaces allowed', Payload: '{}' })).rejects.toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  });

  test('a qualifier in the name that the Qualifier parameter contradicts: 400 InvalidParameterValueException', async () => {
    await expect(invoke({ FunctionName: 'echo:live', Qualifier: 'prod', Payload: '{}' })).rejects.toMatchObject({ name: 'InvalidParameterValueException', $metadata: { httpStatusCode: 400 } });
  });
});

describe('invocation types', () => {
  test('DryRun: 204 without running the function', async () => {
    await expect(invoke({ FunctionName: 'echo', InvocationType: 'DryRun', Payload: '{}' })).resolves.toMatchObject({ StatusCode: 204 });
    expect(handed).toEqual([]);
  });

  test('Event: refused with InvalidParameterValueException, saying local mode does not emulate asynchronous invocation', async () => {
    await expect(invoke({ FunctionName: 'echo', InvocationType: 'Event', Payload: '{}' })).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringContaining('Event (asynchronous invocation, with its retries, maximum event age and destinations) is not emulated'),
      $metadata: { httpStatusCode: 400 },
    });
    expect(handed).toEqual([]);
  });
});

describe('who may invoke', () => {
  test('a key the layer does not know: 403 UnrecognizedClientException, the function never runs', async () => {
    await expect(invoke({ FunctionName: 'echo', Payload: '{}' }, client({ accessKeyId: 'AKIASOMEONEELSE', secretAccessKey: 's' }))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
      $metadata: { httpStatusCode: 403 },
    });
    expect(handed).toEqual([]);
    expect(refusals).toEqual([expect.stringContaining('lambda:Invoke refused: access key AKIASOMEONEELSE')]);
  });

  test('a request with no signature: 403 UnrecognizedClientException, the function never runs', async () => {
    const response = await fetch(`${gateway.endpoint}/2015-03-31/functions/echo/invocations`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('UnrecognizedClientException');
    expect(handed).toEqual([]);
  });

  test('any other operation of Lambda\'s API is not served: 404 UnknownOperationException, naming what is', async () => {
    // The layer reads only the signature's access key: a header naming the local account's key is signed enough.
    const authorization = `AWS4-HMAC-SHA256 Credential=${LOCAL_CREDENTIALS.accessKeyId}/20261201/${LOCAL_REGION}/lambda/aws4_request, SignedHeaders=host, Signature=0`;
    const response = await fetch(`${gateway.endpoint}/2015-03-31/functions/`, { method: 'GET', headers: { authorization } });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
    expect(await response.json()).toMatchObject({ message: expect.stringContaining('serves only Invoke (POST /2015-03-31/functions/{FunctionName}/invocations)') });
    expect(layer.stats()).toMatchObject({ requestsChecked: 1, rejected: 1, byRule: { 'gateway.unclassified-request': 1 } });
  });

  test('an unsigned request for another operation is refused for its signature first: 403 UnrecognizedClientException', async () => {
    const response = await fetch(`${gateway.endpoint}/2015-03-31/functions/`, { method: 'GET' });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('UnrecognizedClientException');
  });

  /** Two functions' roles: Caller's grants lambda:InvokeFunction on echo; Other's grants nothing of Lambda. */
  function enforceRoles(): { caller: ReturnType<CallerDirectory['register']>; other: ReturnType<CallerDirectory['register']> } {
    const role = (name: string) => ({ Type: 'AWS::IAM::Role', Properties: { RoleName: name } });
    const fn = (roleId: string) => ({ Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': [roleId, 'Arn'] } } });
    const grant = { Type: 'AWS::IAM::Policy', Properties: { PolicyName: 'Invoke', Roles: [{ Ref: 'CallerRole' }], PolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: [ARN('echo'), `${ARN('echo')}:*`] }] } } };
    const template: Template = { Resources: { CallerRole: role('caller-role'), OtherRole: role('other-role'), Caller: fn('CallerRole'), Other: fn('OtherRole'), Grant: grant } };
    const context = deployedResolveContext(template, { stackName: 'S', region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
    const policies = compileRolePolicies(template, (value) => resolveValue(value, context));
    const principals = new Map(['Caller', 'Other'].map((id) => [id, functionPrincipal(policies, id, { functionName: id.toLowerCase(), accountId: LOCAL_ACCOUNT_ID })]));
    layer.enforceIam(new IamGuard({ policies, principals, lookups: { region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID }, tokens: layer.tokens }));
    return { caller: callers.register('Caller'), other: callers.register('Other') };
  }

  test('a function whose role does not grant lambda:InvokeFunction: 403 AccessDeniedException naming the function\'s ARN', async () => {
    const { other } = enforceRoles();
    await expect(invoke({ FunctionName: 'echo', Payload: '{}' }, client(other))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: `User: arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/other-role/other is not authorized to perform: lambda:InvokeFunction on resource: ${ARN('echo')} because no identity-based policy allows the lambda:InvokeFunction action`,
      $metadata: { httpStatusCode: 403 },
    });
    expect(handed).toEqual([]);
    expect(layer.stats()).toMatchObject({ iamChecks: 1, iamDenied: 1 });
  });

  test('a function whose role grants it invokes; the same role may not invoke a function its grant does not name', async () => {
    const { caller } = enforceRoles();
    await expect(invoke({ FunctionName: 'echo', Payload: '{}' }, client(caller))).resolves.toMatchObject({ StatusCode: 200 });
    await expect(invoke({ FunctionName: 'thrower', Payload: '{}' }, client(caller))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(layer.stats()).toMatchObject({ iamChecks: 2, iamDenied: 1 });
  });

  test('the local account is not evaluated', async () => {
    enforceRoles();
    await expect(invoke({ FunctionName: 'echo', Payload: '{}' })).resolves.toMatchObject({ StatusCode: 200 });
    expect(layer.stats().iamChecks).toBe(0);
  });
});

test('a Lambda gateway without a stack serves the functions it is given, and more later', async () => {
  const standalone = await startLambdaGateway([FUNCTIONS[0]!]);
  try {
    await expect(invoke({ FunctionName: 'echo', Payload: '{}' }, client(LOCAL_CREDENTIALS, standalone.endpoint))).resolves.toMatchObject({ StatusCode: 200 });
    await expect(invoke({ FunctionName: 'thrower', Payload: '{}' }, client(LOCAL_CREDENTIALS, standalone.endpoint))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    standalone.serve([FUNCTIONS[1]!]);
    await expect(invoke({ FunctionName: 'thrower', Payload: '{}' }, client(LOCAL_CREDENTIALS, standalone.endpoint))).resolves.toMatchObject({ FunctionError: 'Unhandled' });
    expect(standalone.stats().requestsChecked).toBe(3);
  } finally {
    await standalone.stop();
  }
});
