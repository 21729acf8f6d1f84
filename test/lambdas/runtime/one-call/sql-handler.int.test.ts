/**
 * `sqlHandler`, the one-call handler of the SQL form: built from the variables that
 * `SqlEffectDatabase.connect` sets, it reaches a real PostgreSQL through the RDS Data API (a real
 * `@aws-sdk/client-rds-data` client of its own, pointed at the local Data API gateway as the SDK
 * is pointed anywhere, by `AWS_ENDPOINT_URL_RDS_DATA`), applies a duplicate once with the dedup
 * row's expiry from `DEDUP_TTL_SECONDS`, sends a bad effect to the DLQ with its context, and names
 * a variable the construct did not set.
 */
import { z } from 'zod';
import { destroyClients, type LocalClients } from '../../../../emulator/engines';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../../emulator/engines/postgres';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../../emulator/gateway/data-api-gateway';
import { route, sqlHandler, type BatchHandler } from '../../../../lambdas/runtime';
import { testClients } from '../../../helpers/engines';
import { sqsEvent } from '../../../helpers/events';
import { dlqFailures, queueWithDlq } from '../../../helpers/fixtures';
import { balancesOf, countOf, createLedger, entry, entryEffects, MAX_AMOUNT, recordOf, type Ledger } from '../stores/postgres/ledger-fixture';

const TTL_SECONDS = 3_600;
const SDK_VARIABLES = { AWS_ENDPOINT_URL_RDS_DATA: '', AWS_REGION: LOCAL_REGION, AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey };

let postgres: RunningPostgres;
let gateway: DataApiGateway;
let clients: LocalClients;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  postgres = await startPostgres();
  gateway = await startDataApiGateway({ postgres: postgres.connection });
  clients = testClients();
  // What Lambda gives a function (its region and credentials), and the endpoint local mode sets.
  for (const [name, value] of Object.entries({ ...SDK_VARIABLES, AWS_ENDPOINT_URL_RDS_DATA: gateway.endpoint })) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  destroyClients(clients);
  await gateway?.stop();
  await postgres?.stop();
});

const entryPayload = z.object({ entryId: z.string(), account: z.string(), amount: z.number().int() });

/** The ledger's handler file as a user writes it with `sqlHandler`. */
function ledgerHandler(ledger: Ledger, env: Record<string, string>): BatchHandler {
  return sqlHandler({ name: 'ledger', routes: () => ({ 'ledger.entry': route(entryPayload, (event) => entryEffects(ledger, event.payload)) }), env, clients });
}

/** A fresh ledger and DLQ, and the environment a QueueConsumer connected to a SqlEffectDatabase gets. */
async function constructEnv(): Promise<{ ledger: Ledger; env: Record<string, string>; dlq: { url: string } }> {
  const [ledger, queues] = await Promise.all([createLedger(postgres.connection), queueWithDlq(clients.sqs, 'sql-one-call')]);
  const env = {
    CONSUMER_NAME: 'ledger',
    DLQ_URL: queues.dlq.url,
    MAX_ATTEMPTS: '5',
    DEDUP_TTL_SECONDS: String(TTL_SECONDS),
    DATA_API_RESOURCE_ARN: LOCAL_CLUSTER_ARN,
    DATA_API_SECRET_ARN: LOCAL_SECRET_ARN,
    DATA_API_DATABASE: 'postgres',
    SQL_DEDUP_TABLE: ledger.dedup,
  };
  return { ledger, env, dlq: queues.dlq };
}

test('a duplicate is applied once through the Data API, and its dedup row expires after the TTL the construct set', async () => {
  const { ledger, env } = await constructEnv();
  const handler = ledgerHandler(ledger, env);
  const first = entry('e-1', 'acc-a', 40);
  expect((await handler(sqsEvent(recordOf(first), recordOf(first), recordOf(entry('e-2', 'acc-a', 2))))).batchItemFailures).toEqual([]);
  expect((await handler(sqsEvent(recordOf(first, { receiveCount: 2 })))).batchItemFailures).toEqual([]);
  expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 42 });
  const expiresAt = await countOf(postgres.connection, `SELECT expires_at AS count FROM ${ledger.dedup} WHERE dedup_key = $1`, [`ledger#${first.eventId}`]);
  expect(expiresAt - Date.now() / 1000).toBeGreaterThan(TTL_SECONDS - 120);
  expect(expiresAt - Date.now() / 1000).toBeLessThanOrEqual(TTL_SECONDS);
  expect(gateway.service.openTransactions()).toBe(0);
});

test('a bad effect goes to the DLQ with its failure context; the rest commit', async () => {
  const { ledger, env, dlq } = await constructEnv();
  const handler = ledgerHandler(ledger, env);
  const tooBig = entry('e-3', 'acc-b', MAX_AMOUNT + 1);
  expect((await handler(sqsEvent(recordOf(entry('e-4', 'acc-b', 7)), recordOf(tooBig)))).batchItemFailures).toEqual([]);
  expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-b': 7 });
  const failures = await dlqFailures(clients.sqs, dlq.url);
  expect(failures).toEqual([expect.objectContaining({ eventId: tooBig.eventId, consumer: 'ledger', error: expect.objectContaining({ kind: 'permanent', message: expect.stringContaining('SQLSTATE 23514') }) })]);
});

test('a variable the construct did not set is named at the first invocation, not at import', async () => {
  const { ledger, env } = await constructEnv();
  const without = Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'DATA_API_SECRET_ARN'));
  const handler = ledgerHandler(ledger, without);
  await expect(handler(sqsEvent(recordOf(entry('e-5', 'acc-c', 1))))).rejects.toThrow(/DATA_API_SECRET_ARN/);
});
