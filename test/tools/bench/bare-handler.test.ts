/**
 * The cold-start baseline (`tools/bench/handlers/bare.ts`) is only fair while it creates what
 * the runtime's `createClients` creates: the same clients, with the same attempts, request
 * handlers and handler settings, on AWS and under an endpoint override (local mode).
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { ListTopicsCommand } from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { createClients, SDK_CLIENT_DEFAULTS, type AwsClients } from '../../../lambdas/runtime';
import { BARE_CLIENT_SETTINGS, createBareClients, handler } from '../../../tools/bench/handlers/bare';

type Env = Record<string, string | undefined>;

interface ResolvedClient {
  readonly config: { readonly requestHandler: unknown; readonly useQueueUrlAsEndpoint?: boolean; maxAttempts(): Promise<number> };
  send(command: unknown, options: { abortSignal: AbortSignal }): Promise<unknown>;
  destroy(): void;
}

interface ResolvedHandler {
  readonly metadata: { readonly handlerProtocol: string };
  httpHandlerConfigs(): Record<string, unknown>;
}

const REGION: Env = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
const COMMANDS: Record<keyof AwsClients, () => unknown> = {
  dynamodb: () => new ListTablesCommand({}),
  sqs: () => new ListQueuesCommand({}),
  sns: () => new ListTopicsCommand({}),
  kinesis: () => new ListStreamsCommand({}),
};

/**
 * What each client was configured with. A send that is aborted before it starts makes the client
 * build its request handler and resolve that handler's settings, without a request going out.
 */
async function settingsOf(clients: AwsClients): Promise<Record<string, unknown>> {
  const entries = await Promise.all((Object.entries(clients) as [keyof AwsClients, ResolvedClient][]).map(async ([name, client]) => {
    await client.send(COMMANDS[name](), { abortSignal: AbortSignal.abort() }).catch(() => undefined);
    const requestHandler = client.config.requestHandler as ResolvedHandler;
    const resolved = { protocol: requestHandler.metadata.handlerProtocol, handler: scalars(requestHandler.httpHandlerConfigs()), maxAttempts: await client.config.maxAttempts(), useQueueUrlAsEndpoint: client.config.useQueueUrlAsEndpoint };
    client.destroy();
    return [name, resolved] as const;
  }));
  return Object.fromEntries(entries);
}

/** A handler's settings that are values: its agents and providers are new objects in every client. */
function scalars(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => typeof value !== 'object' && typeof value !== 'function'));
}

const saved = { ...process.env };
beforeAll(() => Object.assign(process.env, REGION));
afterAll(() => {
  process.env = saved;
});

test('states the runtime\'s SDK client defaults', () => {
  expect(BARE_CLIENT_SETTINGS).toEqual(SDK_CLIENT_DEFAULTS);
});

test.each([
  ['on AWS', {}],
  ['under an endpoint override', { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' }],
])('creates the clients the runtime creates, configured alike, %s', async (_case, env: Env) => {
  const bare = await settingsOf(createBareClients(env));
  expect(Object.keys(bare)).toEqual(['dynamodb', 'sqs', 'sns', 'kinesis']);
  expect(bare).toEqual(await settingsOf(createClients(env)));
});

test('reports every record processed, and does nothing else', async () => {
  await expect(handler()).resolves.toEqual({ batchItemFailures: [] });
});
