/**
 * The latency profile: its draws come from the figures in emulator/gateway/latency-profile.ts (a
 * median near the file's, a transaction growing with its actions, a seed reproducing them), its
 * settings are checked, and a request through the contract layer waits the drawn latency, or
 * nothing with the profile off. The engine is a stub in this process that answers at once.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines';
import { ContractLayer } from '../../../emulator/gateway/contract-layer';
import { CallerDirectory } from '../../../emulator/gateway/credentials';
import { EngineFacts } from '../../../emulator/gateway/engine-facts';
import { startGatewayServer, type GatewayServer } from '../../../emulator/gateway/gateway-server';
import { LatencyModel, LatencySettingError, latencyProfile, type LatencyRequest } from '../../../emulator/gateway/latency';
import { AWS_LATENCY_FIGURES, DEFAULT_LATENCY } from '../../../emulator/gateway/latency-profile';

const AWS = latencyProfile('aws');
const getItem: LatencyRequest = { service: 'dynamodb', operation: 'GetItem' };
const transaction = (actions: number): LatencyRequest => ({ service: 'dynamodb', operation: 'TransactWriteItems', input: { TransactItems: Array.from({ length: actions }, () => ({})) } });

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

const draws = (model: LatencyModel, request: LatencyRequest, n = 20_000): number[] => Array.from({ length: n }, () => model.draw(request));

describe('the aws profile draws from the figures file', () => {
  test.each(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'sqs:SendMessage', 'sns:Publish', 'kinesis:PutRecord'] as const)('%s: median and p99 of many draws near the file\'s', (key) => {
    const [service, operation] = key.split(':') as [string, string];
    const figure = AWS_LATENCY_FIGURES[key];
    const sample = draws(new LatencyModel(AWS, { seed: 7 }), { service, operation });
    expect(Math.abs(median(sample) - figure.medianMs) / figure.medianMs).toBeLessThan(0.05);
    expect(Math.abs(percentile(sample, 0.99) - figure.p99Ms) / figure.p99Ms).toBeLessThan(0.15);
  });

  test('an operation the file does not name gets its default', () => {
    const sample = draws(new LatencyModel(AWS, { seed: 3 }), { service: 'dynamodb', operation: 'DescribeTable' });
    expect(Math.abs(median(sample) - DEFAULT_LATENCY.medianMs) / DEFAULT_LATENCY.medianMs).toBeLessThan(0.05);
  });

  test('TransactWriteItems grows with its actions, by the file\'s per-action figure', () => {
    const figure = AWS_LATENCY_FIGURES['dynamodb:TransactWriteItems'];
    const one = median(draws(new LatencyModel(AWS, { seed: 5 }), transaction(1)));
    const hundred = median(draws(new LatencyModel(AWS, { seed: 5 }), transaction(100)));
    expect(hundred).toBeGreaterThan(one);
    expect(hundred).toBeCloseTo(figure.medianMs + 100 * figure.perActionMs, -1);
  });

  test('the scale multiplies the figures', () => {
    const half = median(draws(new LatencyModel(latencyProfile('aws', '0.5'), { seed: 9 }), getItem));
    expect(Math.abs(half - AWS_LATENCY_FIGURES['dynamodb:GetItem'].medianMs / 2)).toBeLessThan(0.15);
  });

  test('a seed reproduces the draws; another seed does not', () => {
    const first = draws(new LatencyModel(AWS, { seed: 11 }), getItem, 50);
    expect(draws(new LatencyModel(AWS, { seed: 11 }), getItem, 50)).toEqual(first);
    expect(draws(new LatencyModel(AWS, { seed: 12 }), getItem, 50)).not.toEqual(first);
  });

  test('the none profile draws nothing', () => {
    expect(new LatencyModel().draw(getItem)).toBe(0);
    expect(new LatencyModel(latencyProfile('none')).draw(transaction(100))).toBe(0);
  });

  test('every figure names a source with a date and whether AWS documents it, and has p99 above median', () => {
    for (const figure of Object.values(AWS_LATENCY_FIGURES)) {
      expect(figure.source.url).toMatch(/^https:\/\//);
      expect(figure.source.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(typeof figure.source.documented).toBe('boolean');
      expect(figure.p99Ms).toBeGreaterThan(figure.medianMs);
    }
  });
});

describe('latency settings', () => {
  test('a known profile and a scale in range are taken', () => {
    expect(latencyProfile('aws', '2')).toEqual({ name: 'aws', scale: 2 });
    expect(latencyProfile('none')).toEqual({ name: 'none', scale: 1 });
  });

  test.each([
    ['fast', '1', /unknown latency profile "fast": expected one of none, aws/],
    ['aws', '0', /latency scale must be a number > 0 and <= 100 \(given "0"\)/],
    ['aws', '-1', /given "-1"/],
    ['aws', 'abc', /given "abc"/],
    ['aws', '', /given ""/],
    ['aws', '101', /given "101"/],
    ['none', '0.5', /the profile is none \(given scale 0.5\): add --latency aws/],
  ])('refuses profile %p with scale %p, clearly', (name, scale, message) => {
    expect(() => latencyProfile(name, scale)).toThrow(LatencySettingError);
    expect(() => latencyProfile(name, scale)).toThrow(message);
  });
});

describe('a request through the contract layer', () => {
  let gateway: GatewayServer;
  let client: DynamoDBClient;

  /** The engine's own time per request, as a long poll that waits for its messages. */
  let engineMs = 0;

  async function start(latency?: LatencyModel): Promise<void> {
    engineMs = 0;
    const layer = new ContractLayer({ callers: new CallerDirectory('refuse'), facts: new EngineFacts({}), latency });
    const answer = async () => {
      if (engineMs > 0) await sleep(engineMs);
      return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Buffer.from('{}') };
    };
    gateway = await startGatewayServer({ layer, answer });
    client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
  }

  afterEach(async () => {
    client.destroy();
    await gateway.stop();
  });

  const timed = async (): Promise<number> => {
    const started = performance.now();
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } }));
    return performance.now() - started;
  };

  test('waits at least the latency drawn for it', async () => {
    // Scaled up so that the wait stands well above the machine's own noise; the same seed tells what was drawn.
    const profile = latencyProfile('aws', '25');
    await start(new LatencyModel(profile, { seed: 21 }));
    const expected = new LatencyModel(profile, { seed: 21 });
    for (let i = 0; i < 3; i += 1) {
      const drawn = expected.draw({ service: 'dynamodb', operation: 'GetItem', input: {} });
      expect(await timed()).toBeGreaterThanOrEqual(drawn - 1);
    }
  });

  test('waits nothing with the profile off', async () => {
    await start();
    await timed();
    const elapsed = await timed();
    expect(elapsed).toBeLessThan(AWS_LATENCY_FIGURES['dynamodb:GetItem'].medianMs * 25);
  });

  test('a long poll waits for its messages and gets no more than its figure on top', async () => {
    const profile = latencyProfile('aws', '25');
    await start(new LatencyModel(profile, { seed: 33 }));
    const drawn = new LatencyModel(profile, { seed: 33 }).draw({ service: 'sqs', operation: 'ReceiveMessage' });
    const sqs = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 });
    engineMs = 1_000;
    const started = performance.now();
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: 'http://sqs.us-east-1.localhost:9999/000000000000/q', WaitTimeSeconds: 1 }));
    const elapsed = performance.now() - started;
    sqs.destroy();
    expect(drawn).toBeLessThan(engineMs);
    expect(elapsed).toBeGreaterThanOrEqual(engineMs - 1);
    // The wait runs beside the engine's: a sum would take engineMs + drawn.
    expect(elapsed).toBeLessThan(engineMs + drawn / 2);
  });
});
