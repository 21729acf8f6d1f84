/**
 * The SDK clients' timeouts and attempts. A handler resolves its settings on its first request,
 * so each client first sends one request with an aborted signal (nothing leaves the process),
 * and the test then reads the settings back through the handler's public `httpHandlerConfigs()`.
 * The hung-server tests send real requests to a local TCP server that accepts and never answers.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListStreamsCommand } from '@aws-sdk/client-kinesis';
import { ListTopicsCommand } from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { CONSUMER_DEFAULTS, QUEUE_CONSUMER_DEFAULTS } from '../../../../lib/defaults';
import { DEFAULT_BACKOFF } from '../../../../lambdas/runtime/core/backoff';
import { createClients, SDK_CLIENT_DEFAULTS, WRITE_ATTEMPTS_PER_DELIVERY, type AwsClients, type SdkClientSettings } from '../../../../lambdas/runtime/one-call/clients';

type Env = Record<string, string | undefined>;
const LOCAL_OVERRIDE: Env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:1' };
const FAKE_ACCOUNT: Env = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };

interface SentBy {
  readonly client: { send(command: never, options: { abortSignal: AbortSignal }): Promise<unknown>; destroy(): void; config: { requestHandler: unknown; maxAttempts: () => Promise<number> } };
  readonly command: unknown;
}

/** One cheap command per client, so that each can be made to resolve its handler. */
function commandsOf(clients: AwsClients): Record<keyof AwsClients, SentBy> {
  return {
    dynamodb: { client: clients.dynamodb as never, command: new ListTablesCommand({}) },
    sqs: { client: clients.sqs as never, command: new ListQueuesCommand({}) },
    sns: { client: clients.sns as never, command: new ListTopicsCommand({}) },
    kinesis: { client: clients.kinesis as never, command: new ListStreamsCommand({}) },
  };
}

interface Handler {
  readonly metadata: { handlerProtocol: string };
  httpHandlerConfigs(): Record<string, unknown>;
}

/** The client's handler, its settings resolved, and its `maxAttempts`. */
async function configOf({ client, command }: SentBy): Promise<{ handler: Handler; settings: Record<string, unknown>; maxAttempts: number }> {
  const aborted = AbortSignal.abort();
  await client.send(command as never, { abortSignal: aborted }).catch(() => undefined);
  const handler = client.config.requestHandler as Handler;
  return { handler, settings: handler.httpHandlerConfigs(), maxAttempts: await client.config.maxAttempts() };
}

function withEnv(values: Env): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

let restoreAccount: () => void;
beforeAll(() => {
  restoreAccount = withEnv(FAKE_ACCOUNT);
});
afterAll(() => restoreAccount());

describe('createClients: timeouts and attempts from SDK_CLIENT_DEFAULTS', () => {
  test('the defaults: a 1 s connection timeout, a 2 s request timeout, 3 attempts', () => {
    expect(SDK_CLIENT_DEFAULTS).toEqual({ connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 3 });
  });

  test.each(['dynamodb', 'sqs', 'sns'] as const)('%s, on AWS and under an endpoint override: HTTP/1.1 with both timeouts, throwing on the request timeout', async (name) => {
    for (const env of [{}, LOCAL_OVERRIDE]) {
      const { handler, settings, maxAttempts } = await configOf(commandsOf(createClients(env))[name]);
      expect(handler.metadata.handlerProtocol).toBe('http/1.1');
      expect(settings).toMatchObject({ connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true });
      expect(maxAttempts).toBe(3);
    }
  });

  test('kinesis on AWS: HTTP/2, one session per request as the SDK does, with the request timeout (HTTP/2 has no connection timeout)', async () => {
    const { handler, settings, maxAttempts } = await configOf(commandsOf(createClients({})).kinesis);
    expect(handler.metadata.handlerProtocol).toBe('h2');
    expect(settings).toMatchObject({ requestTimeout: 2_000, disableConcurrentStreams: true });
    expect(maxAttempts).toBe(3);
  });

  test('kinesis under an endpoint override: HTTP/1.1 with both timeouts', async () => {
    const { handler, settings, maxAttempts } = await configOf(commandsOf(createClients(LOCAL_OVERRIDE)).kinesis);
    expect(handler.metadata.handlerProtocol).toBe('http/1.1');
    expect(settings).toMatchObject({ connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true });
    expect(maxAttempts).toBe(3);
  });

  test.each([[{}], [LOCAL_OVERRIDE]])('settings passed in win over the defaults, for every client (env %j)', async (env) => {
    const overrides = { connectionTimeoutMs: 250, requestTimeoutMs: 4_000, maxAttempts: 5 };
    for (const sent of Object.values(commandsOf(createClients(env, overrides)))) {
      const { handler, settings, maxAttempts } = await configOf(sent);
      const expected = handler.metadata.handlerProtocol === 'h2' ? { requestTimeout: 4_000 } : { connectionTimeout: 250, requestTimeout: 4_000 };
      expect(settings).toMatchObject(expected);
      expect(maxAttempts).toBe(5);
    }
  });

  test.each<[SdkClientSettings]>([[{ requestTimeoutMs: 0 }], [{ connectionTimeoutMs: -1 }], [{ maxAttempts: 1.5 }]])('refuses %j', (settings) => {
    expect(() => createClients({}, settings)).toThrow(RangeError);
  });
});

describe('createClients: a server that accepts and never answers', () => {
  let server: Server;
  let port: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => sockets.add(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });

  /** Sends the client's command once and says how it failed and after how long. */
  async function failureOf(sent: SentBy): Promise<{ name: string; elapsedMs: number }> {
    const started = Date.now();
    const error = await sent.client.send(sent.command as never, { abortSignal: new AbortController().signal }).then(
      () => new Error('the hung server answered'),
      (caught: unknown) => caught as Error,
    );
    sent.client.destroy();
    return { name: error.name, elapsedMs: Date.now() - started };
  }

  const REQUEST_TIMEOUT_MS = 300;
  const settings = { requestTimeoutMs: REQUEST_TIMEOUT_MS, maxAttempts: 1 };

  test.each(['dynamodb', 'sqs', 'sns', 'kinesis'] as const)('%s (HTTP/1.1, local mode) gives up after about the request timeout', async (name) => {
    const restore = withEnv({ AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` });
    try {
      const { name: errorName, elapsedMs } = await failureOf(commandsOf(createClients(process.env, settings))[name]);
      expect(errorName).toBe('TimeoutError');
      expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 20);
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
    } finally {
      restore();
    }
  }, 5_000);

  test('kinesis over HTTP/2 (as on AWS) gives up after about the request timeout, even before TLS completes', async () => {
    // The endpoint is set for the SDK only; createClients sees no override and keeps HTTP/2.
    const restore = withEnv({ AWS_ENDPOINT_URL_KINESIS: `https://127.0.0.1:${port}` });
    try {
      const { name: errorName, elapsedMs } = await failureOf(commandsOf(createClients({}, settings)).kinesis);
      expect(errorName).toBe('TimeoutError');
      expect(elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 20);
      expect(elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1_500);
    } finally {
      restore();
    }
  }, 5_000);
});

describe('the total attempt bound', () => {
  const SECTION = '## How many times one write is tried';

  /** The Attempts column of the row whose first cell starts with `label`, in the docs section. */
  function figureOf(label: string): number {
    const text = readFileSync(join(__dirname, '../../../../docs/reliability.md'), 'utf8');
    const section = text.slice(text.indexOf(SECTION)).split('\n## ')[0];
    const row = section.split('\n').find((line) => line.replace(/\*\*/g, '').startsWith(`| ${label}`));
    if (!row) throw new Error(`docs/reliability.md has no row "${label}" under "${SECTION}"`);
    return Number(row.split('|')[2].replace(/\*\*/g, '').trim());
  }

  test('is the SDK\'s attempts times the runtime\'s', () => {
    expect(WRITE_ATTEMPTS_PER_DELIVERY).toBe(SDK_CLIENT_DEFAULTS.maxAttempts * DEFAULT_BACKOFF.maxAttempts);
    expect(WRITE_ATTEMPTS_PER_DELIVERY).toBe(9);
  });

  test('docs/reliability.md states the figures the constants give', () => {
    expect(figureOf('The AWS SDK')).toBe(SDK_CLIENT_DEFAULTS.maxAttempts);
    expect(figureOf('The runtime')).toBe(DEFAULT_BACKOFF.maxAttempts);
    expect(figureOf('One write, per delivery')).toBe(SDK_CLIENT_DEFAULTS.maxAttempts * DEFAULT_BACKOFF.maxAttempts);
    // A queue consumer's MAX_ATTEMPTS defaults to one receive short of the queue's redrive.
    expect(figureOf('SQS deliveries')).toBe(QUEUE_CONSUMER_DEFAULTS.maxReceiveCount - 1);
    expect(figureOf('One write of an SQS message')).toBe(WRITE_ATTEMPTS_PER_DELIVERY * (QUEUE_CONSUMER_DEFAULTS.maxReceiveCount - 1));
  });

  test('every attempt of one write timing out still ends inside the default function timeout', () => {
    // The SDK waits up to 100 ms, then 200 ms, between its attempts at a timed-out call (@smithy's
    // standard retry: full jitter on a 100 ms base); the runtime's waits come from DEFAULT_BACKOFF.
    const sdkBackoffMs = 100 + 200;
    const runtimeBackoffMs = Array.from({ length: DEFAULT_BACKOFF.maxAttempts - 1 }, (_, retry) => Math.min(DEFAULT_BACKOFF.capMs, DEFAULT_BACKOFF.baseMs * 2 ** retry)).reduce((sum, ms) => sum + ms, 0);
    const worstMs = WRITE_ATTEMPTS_PER_DELIVERY * SDK_CLIENT_DEFAULTS.requestTimeoutMs + DEFAULT_BACKOFF.maxAttempts * sdkBackoffMs + runtimeBackoffMs;
    expect(worstMs).toBeLessThan(CONSUMER_DEFAULTS.timeout.toMilliseconds());
  });
});
