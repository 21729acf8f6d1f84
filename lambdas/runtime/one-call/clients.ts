import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler, type NodeHttp2HandlerOptions, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { DEFAULT_BACKOFF } from '../core/backoff';

/** The AWS clients the runtime uses; tests and local mode pass their own. */
export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  readonly kinesis: KinesisClient;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Timeouts and attempts of every SDK client {@link createClients} builds. Without them the SDK
 * waits forever on a connection that accepts and never answers, and Lambda kills the invocation
 * (30 s by default): the batch then fails as a whole, with no DLQ context and no partial response.
 *
 * - `connectionTimeoutMs` (1 s): how long a socket may take to connect (DNS lookup and TCP, not
 *   TLS). In region a connection takes milliseconds, and to DynamoDB Local on localhost less; the
 *   SDK's own `in-region` defaults mode uses 1.1 s. A connection that has not opened by then will
 *   not, and the retry opens another one. HTTP/1.1 only (below).
 * - `requestTimeoutMs` (2 s): from the start of an attempt until the response's headers arrive,
 *   connection included (HTTP/1.1, with `throwOnRequestTimeout`: without it the handler only logs
 *   a warning). For Kinesis over HTTP/2 it is the longest a stream may stay idle, which also
 *   bounds a connection that never opens, since HTTP/2 has no connection timeout of its own.
 *   DynamoDB answers in milliseconds on AWS; DynamoDB Local on a loaded 2-core machine can take
 *   hundreds of ms for a transaction, so 2 s leaves it several times that. AWS advises at least
 *   1 s for TransactWriteItems, so that a retry rarely meets the first attempt still running
 *   (TransactionInProgressException). The upper side: a write is tried up to
 *   {@link WRITE_ATTEMPTS_PER_DELIVERY} (9) times per delivery, so 9 x 2 s plus the backoffs
 *   (at most about 1 s: the SDK's 0.1 and 0.2 s per call, the runtime's 0.05 and 0.1 s) is 19 s,
 *   inside the 30 s function timeout with room for the DLQ sends and the response.
 * - `maxAttempts` (3): the SDK's default, stated so that the total can be: a timed-out attempt is
 *   retried by the SDK. That is safe for our writes: TransactWriteItems carries a
 *   ClientRequestToken (a retry within 10 minutes is idempotent), a versioned put re-applied is a
 *   failed condition, and a repeated DLQ send is a duplicate that triage groups by `eventId`.
 */
export const SDK_CLIENT_DEFAULTS = {
  connectionTimeoutMs: 1_000,
  requestTimeoutMs: 2_000,
  maxAttempts: 3,
} as const;

/**
 * How many times one write (a transaction, a put, a DLQ send) can be tried in one delivery of a
 * record: the SDK's attempts ({@link SDK_CLIENT_DEFAULTS}) inside each of the runtime's
 * in-process attempts (`DEFAULT_BACKOFF.maxAttempts`). Stated in docs/reliability.md.
 */
export const WRITE_ATTEMPTS_PER_DELIVERY = SDK_CLIENT_DEFAULTS.maxAttempts * DEFAULT_BACKOFF.maxAttempts;

/** Overrides of {@link SDK_CLIENT_DEFAULTS}; each a positive integer. */
export interface SdkClientSettings {
  /** @default 1000 (`SDK_CLIENT_DEFAULTS.connectionTimeoutMs`) */
  readonly connectionTimeoutMs?: number;
  /** @default 2000 (`SDK_CLIENT_DEFAULTS.requestTimeoutMs`) */
  readonly requestTimeoutMs?: number;
  /** Attempts in all, the first included. @default 3 (`SDK_CLIENT_DEFAULTS.maxAttempts`) */
  readonly maxAttempts?: number;
}

type ResolvedSettings = Required<SdkClientSettings>;

/** True when `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL` points the SDK at another endpoint (local mode). */
export function hasEndpointOverride(service: 'SQS' | 'KINESIS', env: Env = process.env): boolean {
  return Boolean(env[`AWS_ENDPOINT_URL_${service}`] || env.AWS_ENDPOINT_URL);
}

/**
 * Clients configured for where they run, each with the timeouts and attempts of
 * {@link SDK_CLIENT_DEFAULTS} unless `settings` says otherwise. Under an endpoint override: SQS
 * sends to the configured endpoint rather than the queue URL's host (local emulators print host
 * names that may not resolve), and Kinesis speaks HTTP/1.1 (emulators do not speak HTTP/2, the
 * Kinesis client's default on AWS).
 *
 * @throws RangeError naming a setting that is not a positive integer.
 * @example
 * ```ts
 * import { createClients } from 'effectively-once/runtime';
 * const clients = createClients(process.env, { requestTimeoutMs: 5_000 }); // a slower dependency
 * ```
 */
export function createClients(env: Env = process.env, settings: SdkClientSettings = {}): AwsClients {
  const resolved = resolveSettings(settings);
  const http1 = () => ({ maxAttempts: resolved.maxAttempts, requestHandler: http1Options(resolved) });
  return {
    dynamodb: new DynamoDBClient(http1()),
    sqs: new SQSClient(hasEndpointOverride('SQS', env) ? { ...http1(), useQueueUrlAsEndpoint: false } : http1()),
    sns: new SNSClient(http1()),
    kinesis: new KinesisClient({ maxAttempts: resolved.maxAttempts, requestHandler: kinesisHandler(resolved, env) }),
  };
}

function resolveSettings(settings: SdkClientSettings): ResolvedSettings {
  const resolved = { ...SDK_CLIENT_DEFAULTS, ...settings };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (given ${value})`);
  }
  return resolved;
}

/**
 * Options rather than a handler: the client builds its own handler from them, and only to a
 * handler it built does the SDK add its default idle-socket timeout (15 minutes; opt-in with the
 * SDK installed here, `AWS_ENABLE_DEFAULT_SOCKET_TIMEOUT_2026=true`).
 */
function http1Options(settings: ResolvedSettings): NodeHttpHandlerOptions {
  return { connectionTimeout: settings.connectionTimeoutMs, requestTimeout: settings.requestTimeoutMs, throwOnRequestTimeout: true };
}

/**
 * On AWS, the Kinesis client's own default (HTTP/2, one session per request) with the request
 * timeout; under an endpoint override, HTTP/1.1, which has to be a handler: options would build
 * an HTTP/2 one.
 */
function kinesisHandler(settings: ResolvedSettings, env: Env): NodeHttpHandler | NodeHttp2HandlerOptions {
  if (hasEndpointOverride('KINESIS', env)) return new NodeHttpHandler(http1Options(settings));
  return { requestTimeout: settings.requestTimeoutMs, disableConcurrentStreams: true };
}

let defaultClients: AwsClients | undefined;

/** One set of clients per Lambda container, created on first use so that their connections are reused. */
export function sharedClients(): AwsClients {
  defaultClients ??= createClients();
  return defaultClients;
}

/**
 * How long a Data API call may take before the client gives up: past the Data API's own 45 s
 * statement limit ("Controlling Data API timeout behavior"), so that the client never abandons a
 * call that is still going to complete.
 */
export const DATA_API_REQUEST_TIMEOUT_MS = 60_000;

/**
 * An RDS Data API client of one attempt (`DataApiSession` refuses any other: the SDK's retry of a
 * statement whose answer was lost would run it twice in one transaction), connecting within
 * `SDK_CLIENT_DEFAULTS.connectionTimeoutMs` and waiting {@link DATA_API_REQUEST_TIMEOUT_MS} for an
 * answer.
 */
export function dataApiClient(): RDSDataClient {
  return new RDSDataClient({
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ connectionTimeout: SDK_CLIENT_DEFAULTS.connectionTimeoutMs, requestTimeout: DATA_API_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true }),
  });
}
