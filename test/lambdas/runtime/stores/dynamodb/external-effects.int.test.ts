/**
 * External effects through Powertools idempotency, on DynamoDB Local: the records' keys and TTL,
 * a lock left by a crashed invocation, the lock each call takes (with a Lambda context or without),
 * and the record writes Powertools gives up on. The effect itself is a counter in the test (what
 * it does is not under test, how often it runs is). A crash mid-effect is an effect that never
 * returns: as with a process that died, its INPROGRESS record stays and nothing more happens. Where
 * a DynamoDB call must fail, SDK middleware fails it before it is sent (a mock of the service's
 * answer: DynamoDB Local never throttles); everything else reaches the engine.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_EFFECT_LOCK_MS, EffectInProgressError, idempotentEffect, type ExternalEffectOptions } from '../../../../../lambdas/runtime';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { lambdaContext } from '../../../../helpers/events';
import { testClients } from '../../../../helpers/engines';
import { idempotencyTable } from '../../../../helpers/fixtures';
import { injectFaults, serviceError } from '../../../../helpers/sdk';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

const throttle = () => serviceError('ProvisionedThroughputExceededException', 400);

type EffectOptions = Omit<ExternalEffectOptions, 'dynamodb'> & { dynamodb?: ExternalEffectOptions['dynamodb'] };

/** An effect that counts its runs, wrapped for the consumer `consumer`. */
function countingEffect(options: EffectOptions, fail = false) {
  const runs: string[] = [];
  const effect = idempotentEffect(async (input: { idempotencyKey: string }) => {
    runs.push(input.idempotencyKey);
    if (fail) throw serviceError('InternalError', 500, 'the receiver failed');
    return { sent: input.idempotencyKey };
  }, { dynamodb: clients.dynamodb, ...options });
  return { effect, runs };
}

/**
 * An effect whose invocation dies in the middle of it: once started it never returns, so its
 * record stays INPROGRESS with the lock its call took. `crashIn` resolves once the effect has
 * started (the lock written), and rejects if the call fails before.
 */
function crashingEffect(options: EffectOptions) {
  const runs: string[] = [];
  const started = new Map<string, () => void>();
  const effect = idempotentEffect(async (input: { idempotencyKey: string }) => {
    runs.push(input.idempotencyKey);
    started.get(input.idempotencyKey)?.();
    return new Promise<never>(() => undefined);
  }, { dynamodb: clients.dynamodb, ...options });
  const crashIn = (idempotencyKey: string, lambdaContext?: Context) => new Promise<void>((resolve, reject) => {
    started.set(idempotencyKey, resolve);
    effect({ idempotencyKey }, lambdaContext).catch(reject);
  });
  return { crashIn, runs };
}

/** A Lambda context whose clock reads `remainingMs()`; like Lambda's, it goes negative once the invocation is over. */
function contextWithClock(remainingMs: () => number): Context {
  return { ...lambdaContext(), getRemainingTimeInMillis: remainingMs };
}

/** When the in-progress lock on `idempotencyKey` expires, as Powertools stored it (ms since the epoch). */
async function lockExpiry(table: string, consumer: string, idempotencyKey: string): Promise<number | undefined> {
  return (await powertoolsStore(table, consumer).getRecord({ idempotencyKey })).inProgressExpiryTimestamp;
}

async function lockFailure(call: Promise<unknown>): Promise<EffectInProgressError> {
  const failure = await call.then(() => undefined, (error: unknown) => error);
  expect(failure).toBeInstanceOf(EffectInProgressError);
  return failure as EffectInProgressError;
}

async function records(table: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await clients.dynamodb.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return Items.map((item) => unmarshall(item));
}

/** Powertools' own store of `consumer`'s records, configured as `idempotentEffect` configures it. */
function powertoolsStore(table: string, consumer: string): DynamoDBPersistenceLayer {
  const store = new DynamoDBPersistenceLayer({ tableName: table, awsSdkV3Client: clients.dynamodb });
  store.configure({ config: new IdempotencyConfig({ eventKeyJmesPath: 'idempotencyKey' }), keyPrefix: consumer });
  return store;
}

/** The lock a crashed invocation leaves: Powertools' INPROGRESS record, expiring in `lockMs`. */
async function leaveLock(table: string, consumer: string, idempotencyKey: string, lockMs: number): Promise<void> {
  await powertoolsStore(table, consumer).saveInProgress({ idempotencyKey }, lockMs);
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

describe('the lock a call takes', () => {
  test('a crash mid-effect without a Lambda context locks the effect for DEFAULT_EFFECT_LOCK_MS, not for the record\'s TTL', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const crashed = crashingEffect({ table, consumer: 'c' });
    await crashed.crashIn('e-crash');
    const next = countingEffect({ table, consumer: 'c' });

    const { retryAt } = await lockFailure(next.effect({ idempotencyKey: 'e-crash' }));
    expect(retryAt?.getTime()).toBeGreaterThan(Date.now() + DEFAULT_EFFECT_LOCK_MS - 10_000);
    expect(retryAt?.getTime()).toBeLessThanOrEqual(Date.now() + DEFAULT_EFFECT_LOCK_MS);
    expect(next.runs).toEqual([]);
  });

  test('with a shorter lockMs, the next delivery is told when the lock expires, and takes the effect over then', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const lockMs = 1_000;
    const startedBefore = Date.now();
    const crashed = crashingEffect({ table, consumer: 'c', lockMs });
    await crashed.crashIn('e-crash');
    const next = countingEffect({ table, consumer: 'c', lockMs });

    const { retryAt } = await lockFailure(next.effect({ idempotencyKey: 'e-crash' }));
    expect(retryAt?.getTime()).toBeGreaterThanOrEqual(startedBefore + lockMs);
    expect(retryAt?.getTime()).toBeLessThanOrEqual(Date.now() + lockMs);
    await sleep((retryAt?.getTime() ?? 0) - Date.now() + 10);
    await expect(next.effect({ idempotencyKey: 'e-crash' })).resolves.toEqual({ sent: 'e-crash' });
    // The crash window the docs state: the effect that died is run again.
    expect([crashed.runs, next.runs]).toEqual([['e-crash'], ['e-crash']]);
  });

  test('a call without a context does not inherit the clock of an earlier call\'s context, long over: its lock still holds', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    let remainingMs = 30_000;
    const crashed = crashingEffect({ table, consumer: 'c' });
    await crashed.crashIn('e-earlier', contextWithClock(() => remainingMs));
    remainingMs = -60_000;
    await crashed.crashIn('e-later');
    const next = countingEffect({ table, consumer: 'c' });

    const { retryAt } = await lockFailure(next.effect({ idempotencyKey: 'e-later' }));
    expect(retryAt?.getTime()).toBeGreaterThan(Date.now() + DEFAULT_EFFECT_LOCK_MS - 10_000);
    expect(next.runs).toEqual([]);
  });

  test('overlapping calls of one effect each lock for their own invocation, or for lockMs without one', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const lockMs = 120_000;
    const crashed = crashingEffect({ table, consumer: 'c', lockMs });
    const before = Date.now();
    await Promise.all([
      crashed.crashIn('e-30s', contextWithClock(() => 30_000)),
      crashed.crashIn('e-none'),
      crashed.crashIn('e-60s', contextWithClock(() => 60_000)),
    ]);
    const after = Date.now();

    for (const [key, heldMs] of [['e-30s', 30_000], ['e-none', lockMs], ['e-60s', 60_000]] as const) {
      const expiry = await lockExpiry(table, 'c', key);
      expect({ key, expiry }).toEqual({ key, expiry: expect.any(Number) });
      expect(expiry).toBeGreaterThanOrEqual(before + heldMs);
      expect(expiry).toBeLessThanOrEqual(after + heldMs);
    }
  });
});

describe('on Lambda Managed Instances (issue 40)', () => {
  // Lambda sets AWS_LAMBDA_MAX_CONCURRENCY there; a timeout reports the invocation failed and a
  // stream retries its batch at once, but the code that was running goes on.
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.AWS_LAMBDA_MAX_CONCURRENCY;
    process.env.AWS_LAMBDA_MAX_CONCURRENCY = '64';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
    else process.env.AWS_LAMBDA_MAX_CONCURRENCY = saved;
  });

  test('an effect still running past its invocation\'s deadline keeps its lock: the retried batch does not run it again', async () => {
    const table = await idempotencyTable(clients.dynamodb);
    const lockMs = 60_000;
    const deadline = Date.now() + 50;
    const running = crashingEffect({ table, consumer: 'c', lockMs });
    await running.crashIn('e-slow', contextWithClock(() => deadline - Date.now()));
    // Past the deadline: the invocation timed out, its effect runs on, the batch comes back.
    await sleep(deadline - Date.now() + 100);
    const retry = countingEffect({ table, consumer: 'c', lockMs });

    const { retryAt } = await lockFailure(retry.effect({ idempotencyKey: 'e-slow' }, contextWithClock(() => 30_000)));
    expect(retryAt?.getTime()).toBeGreaterThan(deadline + lockMs - 10_000);
    expect([running.runs, retry.runs]).toEqual([['e-slow'], []]);
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

test('outcome says whether the effect ran now or its record says it ran before, with the same result', async () => {
  const table = await idempotencyTable(clients.dynamodb);
  const { effect, runs } = countingEffect({ table, consumer: 'notifier' });
  expect(await effect.outcome({ idempotencyKey: 'k-1' }, lambdaContext())).toEqual({ status: 'applied', result: { sent: 'k-1' } });
  expect(await effect.outcome({ idempotencyKey: 'k-1' }, lambdaContext())).toEqual({ status: 'duplicate', result: { sent: 'k-1' } });
  expect(await effect({ idempotencyKey: 'k-1' }, lambdaContext())).toEqual({ sent: 'k-1' });
  expect(runs).toEqual(['k-1']);
});
