/**
 * External effects through Powertools idempotency, on DynamoDB Local: the records' keys and TTL,
 * a lock left by a crashed invocation, and the record writes Powertools gives up on. The effect
 * itself is a counter in the test (what it does is not under test, how often it runs is). Where a
 * DynamoDB call must fail, SDK middleware fails it before it is sent (a mock of the service's
 * answer: DynamoDB Local never throttles); everything else reaches the engine.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { EffectInProgressError, idempotentEffect, type ExternalEffectOptions } from '../../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../../emulator/engines';
import { lambdaContext } from '../../helpers/events';
import { testClients } from '../../helpers/engines';
import { idempotencyTable } from '../../helpers/fixtures';
import { injectFaults, serviceError } from '../../helpers/sdk';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

const throttle = () => serviceError('ProvisionedThroughputExceededException', 400);

/** An effect that counts its runs, wrapped for the consumer `consumer`. */
function countingEffect(options: Omit<ExternalEffectOptions, 'dynamodb'> & { dynamodb?: ExternalEffectOptions['dynamodb'] }, fail = false) {
  const runs: string[] = [];
  const effect = idempotentEffect(async (input: { idempotencyKey: string }) => {
    runs.push(input.idempotencyKey);
    if (fail) throw serviceError('InternalError', 500, 'the receiver failed');
    return { sent: input.idempotencyKey };
  }, { dynamodb: clients.dynamodb, ...options });
  return { effect, runs };
}

async function records(table: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Items.map((item) => unmarshall(item));
}

/** The lock a crashed invocation leaves: Powertools' INPROGRESS record, expiring in `lockMs`. */
async function leaveLock(table: string, consumer: string, idempotencyKey: string, lockMs: number): Promise<void> {
  const store = new DynamoDBPersistenceLayer({ tableName: table, awsSdkV3Client: clients.dynamodb });
  store.configure({ config: new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' }), keyPrefix: consumer });
  await store.saveInProgress({ idempotencyKey }, lockMs);
}

describe('keys and TTL', () => {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  afterEach(() => {
    if (functionName === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    else process.env.AWS_LAMBDA_FUNCTION_NAME = functionName;
  });

  test('a function CloudFormation replaced (a new generated name) still recognises the effects the old one made', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'EffectivelyOnce-ShipmentNotifierFunction92495FFE-AbCdEf';
    const before = countingEffect({ table, consumer: 'shipment-notifier' });
    await before.effect({ idempotencyKey: 'order-7' }, lambdaContext());

    process.env.AWS_LAMBDA_FUNCTION_NAME = 'EffectivelyOnce-NotifierV2Function1A2B3C4D-GhIjKl';
    const after = countingEffect({ table, consumer: 'shipment-notifier' });
    await expect(after.effect({ idempotencyKey: 'order-7' }, lambdaContext())).resolves.toEqual({ sent: 'order-7' });

    expect([...before.runs, ...after.runs]).toEqual(['order-7']);
    const [record] = await records(table);
    expect(String(record?.id)).toMatch(/^shipment-notifier#/);
  });

  test('two consumers of one event each apply it once', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const mailer = countingEffect({ table, consumer: 'mailer' });
    const texter = countingEffect({ table, consumer: 'texter' });
    for (const effect of [mailer.effect, texter.effect, mailer.effect]) await effect({ idempotencyKey: 'e-1' }, lambdaContext());
    expect([mailer.runs, texter.runs]).toEqual([['e-1'], ['e-1']]);
  });

  test('a completed effect is remembered for the validated dedup TTL, not a fixed 30 days', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const twoDays = 2 * 24 * 3600;
    const { effect } = countingEffect({ table, consumer: 'c', expiresAfterSeconds: twoDays });
    await effect({ idempotencyKey: 'e-ttl' }, lambdaContext());
    const [record] = await records(table);
    expect(Number(record?.expiration)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + twoDays - 5);
    expect(Number(record?.expiration)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + twoDays + 5);
  });

  test.each([
    ['no consumer', { consumer: '' }, 'needs the consumer'],
    ['a TTL of 0', { consumer: 'c', expiresAfterSeconds: 0 }, 'expiresAfterSeconds must be a whole number of seconds > 0 (given 0)'],
  ])('refuses %s', (_label, options, message) => {
    expect(() => idempotentEffect(async () => 'x', { table: 't', dynamodb: clients.dynamodb, ...options })).toThrow(message);
  });
});

describe('a lock left by another invocation', () => {
  test('is reported with its expiry, read back from the record Powertools keeps', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    await leaveLock(table, 'c', 'e-locked', 20_000);
    const { effect, runs } = countingEffect({ table, consumer: 'c' });
    const failure = await effect({ idempotencyKey: 'e-locked' }, lambdaContext()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(EffectInProgressError);
    const retryAt = (failure as EffectInProgressError).retryAt?.getTime() ?? 0;
    expect(retryAt).toBeGreaterThan(Date.now() + 15_000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 20_000);
    expect(runs).toEqual([]);
  });

  test('once expired, is taken over: the effect runs once', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    await leaveLock(table, 'c', 'e-expired', 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { effect, runs } = countingEffect({ table, consumer: 'c' });
    await expect(effect({ idempotencyKey: 'e-expired' }, lambdaContext())).resolves.toEqual({ sent: 'e-expired' });
    expect(runs).toEqual(['e-expired']);
  });
});

describe('record writes that Powertools gives up on', () => {
  test('the effect ran but its record could not be marked COMPLETED: it is completed here, and a replay does not run the effect again', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const dynamodb = testClients().dynamodb;
    const outage = injectFaults(dynamodb, { commandName: 'UpdateItemCommand', times: 1, error: throttle });
    const { effect, runs } = countingEffect({ table, consumer: 'c', dynamodb, retry: { sleep: async () => undefined } });

    await expect(effect({ idempotencyKey: 'e-1' }, lambdaContext())).resolves.toEqual({ sent: 'e-1' });
    expect(outage.failures).toBe(1);
    const [record] = await records(table);
    expect(record?.status).toBe('COMPLETED');
    await expect(effect({ idempotencyKey: 'e-1' }, lambdaContext())).resolves.toEqual({ sent: 'e-1' });
    expect(runs).toEqual(['e-1']);
    dynamodb.destroy();
  });

  test('the effect failed and its record could not be deleted: it is deleted here, so the next try does not wait for a lock', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const dynamodb = testClients().dynamodb;
    injectFaults(dynamodb, { commandName: 'DeleteItemCommand', times: 1, error: throttle });
    const failing = countingEffect({ table, consumer: 'c', dynamodb, retry: { sleep: async () => undefined } }, true);

    await expect(failing.effect({ idempotencyKey: 'e-2' }, lambdaContext())).rejects.toThrow('the receiver failed');
    expect(await records(table)).toEqual([]);
    const healthy = countingEffect({ table, consumer: 'c' });
    await expect(healthy.effect({ idempotencyKey: 'e-2' }, lambdaContext())).resolves.toEqual({ sent: 'e-2' });
    dynamodb.destroy();
  });
});
