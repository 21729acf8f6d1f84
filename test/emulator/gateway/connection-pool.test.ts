/**
 * Local mode and the bench keep the SDK's connection pool as deployed: the clients the functions
 * build (`createClients`) and the bench's (`dynamoDbClient`) use the SDK's own HTTP agent, 50
 * sockets per host, so a function with more than 50 requests in flight to one service queues the
 * rest here as it would on AWS. A slow HTTP server stands in for the service (no engine is needed
 * to count sockets) and records how many requests it holds at once. It answers the requests it holds
 * only once none has arrived for a while, not after a fixed delay: on a loaded machine the pool's
 * 50th socket can take longer to connect than a fixed delay, and the count would read 49.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dynamoDbClient } from '../../../emulator/engines';
import { createClients } from '../../../lambdas/runtime/one-call/clients';

const SDK_MAX_SOCKETS = 50;
const REQUESTS = 120;
/** The server answers what it holds once no request has arrived for this long. */
const QUIET_MS = 250;

let server: http.Server;
let endpoint: string;
let mostInFlight = 0;
const held: http.ServerResponse[] = [];
let quiet: NodeJS.Timeout | undefined;

function answerHeld(): void {
  for (const response of held.splice(0)) response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}');
}

beforeAll(async () => {
  server = http.createServer((request, response) => {
    held.push(response);
    mostInFlight = Math.max(mostInFlight, held.length);
    request.resume();
    clearTimeout(quiet);
    quiet = setTimeout(answerHeld, QUIET_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  mostInFlight = 0;
});

async function sendAtOnce(client: DynamoDBClient): Promise<void> {
  try {
    await Promise.all(Array.from({ length: REQUESTS }, (_, index) => client.send(new GetItemCommand({ TableName: 't', Key: { id: { S: String(index) } } }))));
  } finally {
    client.destroy();
  }
}

test(`the bench's client holds at most ${SDK_MAX_SOCKETS} requests in flight to one host`, async () => {
  await sendAtOnce(dynamoDbClient(endpoint));
  expect(mostInFlight).toBe(SDK_MAX_SOCKETS);
});

test(`a function's client (createClients, as deployed) holds at most ${SDK_MAX_SOCKETS} requests in flight to one host`, async () => {
  // What local mode gives a function's process: an endpoint override, a region and keys.
  const env = { AWS_ENDPOINT_URL_DYNAMODB: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
  const previous = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    const { dynamodb, sqs, sns, kinesis } = createClients(process.env);
    for (const other of [sqs, sns, kinesis]) other.destroy();
    await sendAtOnce(dynamodb);
  } finally {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  expect(mostInFlight).toBe(SDK_MAX_SOCKETS);
});
