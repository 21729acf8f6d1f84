/**
 * The synthesized stack's functions behind Lambda's Invoke API, on the engines of this Jest run,
 * called with `@aws-sdk/client-lambda` as `eo dlq redrive` calls them: the consumer runs the
 * records it is handed and answers its batch response; a throw is a function error; a function
 * that does not exist, a payload over 6 MB, an unknown or missing signature are refused as Lambda
 * refuses them; and a function's own credentials invoke only what its role's statements in the
 * template grant. The copy of the template grants shipment-notifier `lambda:InvokeFunction` on
 * page-view-counter, and nothing else of Lambda to anyone.
 */
import { InvokeCommand, type InvokeCommandInput, type InvokeCommandOutput, type LambdaClient } from '@aws-sdk/client-lambda';
import { lambdaClient } from '../../../emulator/engines';
import { functionCredentials } from '../../../emulator/gateway';
import { localStateOf } from '../../../emulator/stack/dlq-context';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import { localDlqClients } from '../../../operations/dlq/local-state';
import { destroyDlqClients } from '../../../operations/dlq/clients';
import { readCounter } from '../../../lambdas/runtime';
import { REPLAY_CLIENT_CONTEXT_BASE64 } from '../../../operations/replay';
import { PAGE_VIEW_COUNTER_SHARDS } from '../../../example/counter-shards';
import type { Template } from '../../../aws/cloudformation/template';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pageView, sqsEvent, sqsRecord } from '../../helpers/events';
import { editedAssembly, functionId, useAssemblyCopies } from './assembly-copy';

useAssemblyCopies();

/** Grants the role of the function `callerPrefix` `lambda:InvokeFunction` on the function `targetPrefix`. */
function grantInvoke(callerPrefix: string, targetPrefix: string) {
  return (template: Template): void => {
    const idOf = (prefix: string) => Object.keys(template.Resources).find((id) => id.startsWith(prefix) && template.Resources[id]?.Type === 'AWS::Lambda::Function') ?? '';
    const role = (template.Resources[idOf(callerPrefix)]?.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    const policy = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles).includes(role));
    const document = policy?.Properties?.PolicyDocument as { Statement: unknown[] };
    document.Statement.push({ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [idOf(targetPrefix), 'Arn'] } });
  };
}

let stack: LocalStack;
let admin: LambdaClient;
const ids = { counter: '', notifier: '', ledger: '' };
const nameOf = (logicalId: string): string => stack.functionSpecs.get(logicalId)?.name ?? '';

beforeAll(async () => {
  const synthesized = editedAssembly(grantInvoke('ShipmentNotifier', 'PageViewCounter'));
  Object.assign(ids, { counter: functionId(synthesized, 'PageViewCounter'), notifier: functionId(synthesized, 'ShipmentNotifier'), ledger: functionId(synthesized, 'AccountLedger') });
  stack = await startLocalStack({ engines: sharedEngines(), synthesized, nameSuffix: `-${uniqueName('lambda')}` });
  admin = lambdaClient(stack.endpoints.lambda);
}, 120_000);
afterAll(async () => {
  admin?.destroy();
  await stack?.stop();
});

async function invoke(input: InvokeCommandInput, client: LambdaClient = admin): Promise<InvokeCommandOutput> {
  return client.send(new InvokeCommand(input));
}

/** A client of the stack's Invoke API signed with `credentials`, destroyed after `use`. */
async function signedAs<T>(credentials: { accessKeyId: string; secretAccessKey: string }, use: (client: LambdaClient) => Promise<T>): Promise<T> {
  const client = lambdaClient(stack.endpoints.lambda, credentials);
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

const payloadOf = (answer: InvokeCommandOutput): unknown => JSON.parse(Buffer.from(answer.Payload ?? []).toString('utf8'));
const views = (page: string) => readCounter(stack.clients.dynamodb, { table: output(stack.outputs, 'CountersTableName'), key: { pk: `page#${page}` }, attribute: 'views', shards: PAGE_VIEW_COUNTER_SHARDS, consistent: true });

describe('the local account invokes a consumer with records', () => {
  test('page-view-counter counts the view it is handed and answers its batch response; the function is the one its mapping runs', async () => {
    const page = uniqueName('page');
    const before = stack.functions.get(ids.counter)?.stats().invocations ?? 0;
    const answer = await invoke({ FunctionName: nameOf(ids.counter), Payload: JSON.stringify(sqsEvent(sqsRecord(pageView(page)))) });
    expect(answer).toMatchObject({ StatusCode: 200, ExecutedVersion: '$LATEST' });
    expect(answer.FunctionError).toBeUndefined();
    expect(payloadOf(answer)).toEqual({ batchItemFailures: [] });
    expect(await views(page)).toBe(1);
    expect(stack.functions.get(ids.counter)?.stats().invocations).toBe(before + 1);
  }, 60_000);

  test('by the function\'s ARN, through the clients `eo dlq --local` builds from the state file', async () => {
    const state = localStateOf(stack);
    expect(state.endpoints.lambda).toBe(stack.endpoints.lambda);
    expect(state.env.AWS_ENDPOINT_URL_LAMBDA).toBe(stack.endpoints.lambda);
    const clients = localDlqClients(state);
    try {
      const page = uniqueName('page');
      const arn = stack.resources.context.resources.get(ids.counter)?.attributes.Arn;
      const answer = await invoke({ FunctionName: arn, Payload: JSON.stringify(sqsEvent(sqsRecord(pageView(page)))) }, clients.lambda);
      expect(payloadOf(answer)).toEqual({ batchItemFailures: [] });
      expect(await views(page)).toBe(1);
    } finally {
      destroyDlqClients(clients);
    }
  }, 60_000);

  test('a consumer that throws on what it is handed: 200, X-Amz-Function-Error Unhandled, the error as the payload', async () => {
    const answer = await invoke({ FunctionName: nameOf(ids.notifier), Payload: JSON.stringify({ Records: 'not a list' }) });
    expect(answer).toMatchObject({ StatusCode: 200, FunctionError: 'Unhandled' });
    expect(payloadOf(answer)).toEqual({ errorType: 'TypeError', errorMessage: expect.any(String) });
  }, 60_000);

  test('each function is told where the Invoke API is, as it is told the engines\' endpoints', () => {
    expect(stack.functionSpecs.get(ids.notifier)?.environment.AWS_ENDPOINT_URL_LAMBDA).toBe(stack.endpoints.lambda);
  });
});

describe('the client context', () => {
  test('reaches the function as context.clientContext: the replay marker makes the consumer answer with its counts', async () => {
    const page = uniqueName('page');
    const event = JSON.stringify(sqsEvent(sqsRecord(pageView(page), { messageId: 'm-1' }), sqsRecord('not json', { messageId: 'm-2' })));
    const answer = await invoke({ FunctionName: nameOf(ids.counter), ClientContext: REPLAY_CLIENT_CONTEXT_BASE64, Payload: event });
    expect(payloadOf(answer)).toEqual({ batchItemFailures: [], replay: { records: 2, applied: 1, duplicates: 0, skipped: 0, permanent: 1, reported: 0 } });
    const again = await invoke({ FunctionName: nameOf(ids.counter), ClientContext: REPLAY_CLIENT_CONTEXT_BASE64, Payload: event });
    expect(payloadOf(again)).toMatchObject({ replay: { applied: 0, duplicates: 1, permanent: 1 } });
    expect(await views(page)).toBe(1);
  }, 60_000);

  test.each([
    ['not base64 of JSON', Buffer.from('not json').toString('base64'), 'Client context must be a valid Base64-encoded JSON object'],
    ['a JSON array', Buffer.from('[1]').toString('base64'), 'Client context must be a valid Base64-encoded JSON object'],
    ['over 3,583 characters', Buffer.from(JSON.stringify({ Custom: { padding: 'x'.repeat(2_700) } })).toString('base64'), 'Client context must be at most 3583 characters of base64'],
  ])('%s: 400 InvalidRequestContentException, the function never runs', async (_, clientContext, message) => {
    const before = stack.functions.get(ids.counter)?.stats().invocations ?? 0;
    await expect(invoke({ FunctionName: nameOf(ids.counter), ClientContext: clientContext, Payload: '{}' })).rejects.toMatchObject({ name: 'InvalidRequestContentException', message: expect.stringContaining(message) });
    expect(stack.functions.get(ids.counter)?.stats().invocations).toBe(before);
  });
});

describe('refused as Lambda refuses', () => {
  test('a function the stack does not have: 404 ResourceNotFoundException', async () => {
    await expect(invoke({ FunctionName: 'no-such-function', Payload: '{}' })).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'Function not found: arn:aws:lambda:us-east-1:000000000000:function:no-such-function', $metadata: { httpStatusCode: 404 } });
  });

  test('a payload over 6 MB: 413 RequestEntityTooLargeException, counted by the contract layer', async () => {
    const rejected = stack.contract().byRule['lambda.invoke.payload-size'] ?? 0;
    const payload = JSON.stringify(sqsEvent(sqsRecord('x'.repeat(6_300_000))));
    await expect(invoke({ FunctionName: nameOf(ids.counter), Payload: payload })).rejects.toMatchObject({ name: 'RequestEntityTooLargeException', $metadata: { httpStatusCode: 413 } });
    expect(stack.contract().byRule['lambda.invoke.payload-size']).toBe(rejected + 1);
  }, 60_000);

  test('a key local mode does not know: 403 UnrecognizedClientException', async () => {
    const refused = signedAs({ accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' }, (client) => invoke({ FunctionName: nameOf(ids.counter), Payload: '{}' }, client));
    await expect(refused).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
  });

  test('a request with no signature: 403, and the function does not run', async () => {
    const before = stack.functions.get(ids.counter)?.stats().invocations;
    const response = await fetch(`${stack.endpoints.lambda}/2015-03-31/functions/${nameOf(ids.counter)}/invocations`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toBe('UnrecognizedClientException');
    expect(stack.functions.get(ids.counter)?.stats().invocations).toBe(before);
  });
});

describe('a function\'s own credentials, decided against its role in the template', () => {
  test('shipment-notifier, granted lambda:InvokeFunction on page-view-counter, invokes it', async () => {
    const page = uniqueName('page');
    const answer = await signedAs(functionCredentials(ids.notifier), (client) => invoke({ FunctionName: nameOf(ids.counter), Payload: JSON.stringify(sqsEvent(sqsRecord(pageView(page)))) }, client));
    expect(payloadOf(answer)).toEqual({ batchItemFailures: [] });
    expect(await views(page)).toBe(1);
  }, 60_000);

  test.each([
    ['shipment-notifier, on a function its grant does not name', 'notifier', 'ledger'],
    ['account-ledger, whose role grants nothing of Lambda', 'ledger', 'counter'],
  ] as const)('%s: 403 AccessDeniedException naming the action and the function', async (_, caller, target) => {
    const denied = stack.contract().iamDenied;
    const refused = signedAs(functionCredentials(ids[caller]), (client) => invoke({ FunctionName: nameOf(ids[target]), Payload: '{}' }, client));
    await expect(refused).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringMatching(new RegExp(`^User: arn:aws:sts::000000000000:assumed-role/[^/]+/${nameOf(ids[caller])} is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:000000000000:function:${nameOf(ids[target])} because no identity-based policy allows`)),
      $metadata: { httpStatusCode: 403 },
    });
    expect(stack.contract().iamDenied).toBe(denied + 1);
  });

  test('DryRun with a role that grants it: 204, and the function does not run', async () => {
    const before = stack.functions.get(ids.counter)?.stats().invocations;
    const answer = await signedAs(functionCredentials(ids.notifier), (client) => invoke({ FunctionName: nameOf(ids.counter), InvocationType: 'DryRun' }, client));
    expect(answer.StatusCode).toBe(204);
    expect(stack.functions.get(ids.counter)?.stats().invocations).toBe(before);
  });
});
