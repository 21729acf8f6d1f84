/**
 * An HTTP proxy in front of DynamoDB Local that answers some data-plane requests with the errors
 * DynamoDB Local never produces on its own: throttling and 5xx. The answers are DynamoDB's own
 * (status, content type, `__type`), so the AWS SDK parses and retries them exactly as it would
 * on AWS. Everything else is forwarded unchanged, bodies streamed both ways.
 */
import { randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_HOST } from '../engines/ports';
import type { Random } from '../types';

/** The operations faulted by default: the item reads and writes the consumers make. */
export const DEFAULT_FAULTED_OPERATIONS = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
] as const;

/**
 * Every operation the proxy may fault: the data plane. Control-plane operations (CreateTable,
 * DescribeTable, ...) and DynamoDB Streams (another target prefix) are never faulted, so that
 * provisioning and the stream pollers see no injected failure.
 */
export const FAULTABLE_OPERATIONS: ReadonlySet<string> = new Set([
  ...DEFAULT_FAULTED_OPERATIONS,
  'Query',
  'Scan',
  'ExecuteStatement',
  'BatchExecuteStatement',
  'ExecuteTransaction',
]);

/** `X-Amz-Target` of DynamoDB's API; DynamoDB Streams use `DynamoDBStreams_20120810.`. */
const TARGET_PREFIX = 'DynamoDB_20120810.';
const ERROR_TYPE_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

const THROTTLE = {
  status: 400,
  type: 'ProvisionedThroughputExceededException',
  message:
    'The level of configured provisioned throughput for the table was exceeded. ' +
    'Consider increasing your provisioning level with the UpdateTable API.',
} as const;

const SERVER_ERROR = { status: 500, type: 'InternalServerError', message: 'Internal server error' } as const;

type Fault = typeof THROTTLE | typeof SERVER_ERROR;

/** Options of {@link startDynamoFaultProxy}. */
export interface DynamoFaultProxyOptions {
  /** DynamoDB Local's endpoint, e.g. `http://127.0.0.1:8000`. */
  readonly target: string;
  /** Draws the fault decisions: a seeded generator reproduces them. */
  readonly random: Random;
  /** Share of affected requests answered with a throttle, 0..1. */
  readonly throttleRate: number;
  /** Share of affected requests answered with a 500, 0..1; with `throttleRate` at most 1. */
  readonly serverErrorRate: number;
  /** Operations to affect, from {@link FAULTABLE_OPERATIONS}. @default DEFAULT_FAULTED_OPERATIONS */
  readonly operations?: readonly string[];
}

/** Counts since the proxy started. */
export interface DynamoFaultProxyStats {
  /** Every request received, faulted or not. */
  readonly requests: number;
  readonly throttled: number;
  readonly serverErrors: number;
}

/** A running proxy. */
export interface DynamoFaultProxy {
  /** Point clients here (`endpoint` or `AWS_ENDPOINT_URL_DYNAMODB`) instead of at DynamoDB Local. */
  readonly endpoint: string;
  stats(): DynamoFaultProxyStats;
  /** Changes the rates from the next request on, e.g. to end an outage. */
  setRates(throttleRate: number, serverErrorRate: number): void;
  /** Closes the proxy and its connections. */
  stop(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1 and a free port. Each affected request takes one draw of
 * `random` (none while both rates are 0): below `throttleRate` it is throttled, below
 * `throttleRate + serverErrorRate` it gets a 500, otherwise it is forwarded.
 *
 * @example
 * const proxy = await startDynamoFaultProxy({ target: endpoints.dynamodb, random: seededRandom(7), throttleRate: 0.2, serverErrorRate: 0.05 });
 * const env = { ...endpointEnv(endpoints), AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint };
 */
export async function startDynamoFaultProxy(options: DynamoFaultProxyOptions): Promise<DynamoFaultProxy> {
  const operations = faultedOperations(options.operations);
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true });
  const counts = { requests: 0, throttled: 0, serverErrors: 0 };
  let rates = checkRates(options.throttleRate, options.serverErrorRate);

  const decide = (req: IncomingMessage): Fault | undefined => {
    if (!operations.has(operationOf(req)) || rates.throttle + rates.serverError === 0) return undefined;
    const draw = options.random();
    if (draw < rates.throttle) return THROTTLE;
    return draw < rates.throttle + rates.serverError ? SERVER_ERROR : undefined;
  };
  const server = createServer({ keepAlive: true }, (req, res) => {
    counts.requests += 1;
    const fault = decide(req);
    if (fault === undefined) return forward(req, res, target, agent);
    if (fault === THROTTLE) counts.throttled += 1;
    else counts.serverErrors += 1;
    answer(req, res, fault);
  });
  const port = await listen(server);
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://${LOCAL_HOST}:${port}`,
    stats: () => ({ ...counts }),
    setRates: (throttleRate, serverErrorRate) => (rates = checkRates(throttleRate, serverErrorRate)),
    stop: () => (stopping ??= close(server, agent)),
  };
}

/** The operation named by `X-Amz-Target`, or '' for anything that is not DynamoDB's API. */
function operationOf(req: IncomingMessage): string {
  const target = req.headers['x-amz-target'];
  return typeof target === 'string' && target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
}

function forward(req: IncomingMessage, res: ServerResponse, target: URL, agent: Agent): void {
  const upstream = request(
    { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
    (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    },
  );
  // DynamoDB Local unreachable or gone mid-answer: the client sees a reset connection, as without the proxy.
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

/** DynamoDB's error answer, sent once the request body is read, so the connection stays usable. */
function answer(req: IncomingMessage, res: ServerResponse, fault: Fault): void {
  const body = JSON.stringify({ __type: `${ERROR_TYPE_PREFIX}${fault.type}`, message: fault.message });
  req.resume();
  req.once('end', () => {
    res.writeHead(fault.status, {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': Buffer.byteLength(body),
      'x-amzn-requestid': randomBytes(26).toString('hex').toUpperCase().slice(0, 52),
      'x-eo-injected-fault': fault.type,
    });
    res.end(body);
  });
}

function faultedOperations(operations: readonly string[] = DEFAULT_FAULTED_OPERATIONS): ReadonlySet<string> {
  const unknown = operations.filter((operation) => !FAULTABLE_OPERATIONS.has(operation));
  if (unknown.length > 0) {
    throw new Error(`operations must be data-plane operations (${[...FAULTABLE_OPERATIONS].join(', ')}); given ${unknown.join(', ')}`);
  }
  return new Set(operations);
}

function checkRates(throttle: number, serverError: number): { throttle: number; serverError: number } {
  for (const [name, rate] of [['throttleRate', throttle], ['serverErrorRate', serverError]] as const) {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`${name} must be 0..1 (given ${rate})`);
  }
  if (throttle + serverError > 1) throw new Error(`throttleRate + serverErrorRate must be at most 1 (given ${throttle} + ${serverError})`);
  return { throttle, serverError };
}

function listen(server: ReturnType<typeof createServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: ReturnType<typeof createServer>, agent: Agent): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    agent.destroy();
  });
}
