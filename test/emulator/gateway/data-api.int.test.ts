/**
 * The SQL strategy through the Data API session, a real `@aws-sdk/client-rds-data` client, the
 * local Data API gateway (the contract layer, IAM included) and a real PostgreSQL: a duplicate is
 * applied once, a bad effect fails its event alone, a real serialization failure and a paused
 * cluster are retried (the latter with the longer waits), a rollback leaves nothing, and the
 * gateway answers in the Data API's shapes (records, metadata, batches, transaction statuses) and
 * refuses what the Data API refuses: a role without the grants, an unknown cluster or secret, a
 * transaction gone idle, a statement past its timeout, a request or a result over the size limits.
 */
import { BatchExecuteStatementCommand, BeginTransactionCommand, CommitTransactionCommand, ExecuteStatementCommand, RDSDataClient, RollbackTransactionCommand } from '@aws-sdk/client-rds-data';
import { MetricName } from '../../../aws/metrics';
import { DataApiRefusedError, DataApiSession, DatabaseResumingError, RESUMING_BACKOFF, sql, sqlIdentifier, SqlTransientError } from '../../../lambdas/runtime';
import { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../emulator/engines/postgres';
import { ContractLayer } from '../../../emulator/gateway/contract-layer';
import { CallerDirectory, type LocalCredentials } from '../../../emulator/gateway/credentials';
import { startContractGateways } from '../../../emulator/gateway/contract-gateways';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../emulator/gateway/data-api-gateway';
import { EngineFacts } from '../../../emulator/gateway/engine-facts';
import { IamGuard } from '../../../emulator/gateway/iam-guard';
import { compileRolePolicies, deployedResolveContext, functionPrincipal } from '../../../emulator/iam';
import { resolveValue } from '../../../aws/cloudformation/intrinsics';
import type { Template } from '../../../aws/cloudformation/template';
import { sqsEvent } from '../../helpers/events';
import { noSleep } from '../../helpers/fakes';
import { balancesOf, countOf, createLedger, entry, interferingSession, ledgerConsumer, MAX_AMOUNT, recordOf } from '../../lambdas/runtime/stores/postgres/ledger-fixture';

let postgres: RunningPostgres;
let gateway: DataApiGateway;
const clients: RDSDataClient[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  gateway = await startDataApiGateway({ postgres: postgres.connection });
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await gateway?.stop();
  await postgres?.stop();
});

function client(credentials: LocalCredentials = LOCAL_CREDENTIALS, endpoint = gateway.endpoint): RDSDataClient {
  const made = new RDSDataClient({ region: LOCAL_REGION, credentials, endpoint, maxAttempts: 1 });
  clients.push(made);
  return made;
}

function session(options: { credentials?: LocalCredentials; endpoint?: string; secretArn?: string } = {}): DataApiSession {
  return new DataApiSession({ client: client(options.credentials, options.endpoint), resourceArn: LOCAL_CLUSTER_ARN, secretArn: options.secretArn ?? LOCAL_SECRET_ARN });
}

describe('the SQL strategy through the Data API', () => {
  test('an event twice in a batch and again later is applied once', async () => {
    const ledger = await createLedger(postgres.connection);
    const consumer = ledgerConsumer(ledger, session());
    const first = entry('d-1', 'acc-a', 100);
    expect((await consumer.handle(sqsEvent(recordOf(first), recordOf(first), recordOf(entry('d-2', 'acc-a', 5))))).batchItemFailures).toEqual([]);
    expect((await consumer.handle(sqsEvent(recordOf(first, { receiveCount: 2 })))).batchItemFailures).toEqual([]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 105 });
    expect(consumer.observability.counts.get(MetricName.PROCESSED)).toBe(2);
    expect(consumer.observability.counts.get(MetricName.DUPLICATES)).toBe(2);
    expect(gateway.service.openTransactions()).toBe(0);
  });

  test('a CHECK and a UNIQUE violation fail their events alone, permanently, with the SQLSTATE read out of the Data API\'s message; the rest commit', async () => {
    const ledger = await createLedger(postgres.connection);
    const consumer = ledgerConsumer(ledger, session());
    const reusedId = { ...entry('b-4', 'acc-b', 1), payload: { entryId: 'b-1', account: 'acc-b', amount: 1 } };
    const response = await consumer.handle(sqsEvent(recordOf(entry('b-1', 'acc-a', 10)), recordOf(entry('b-2', 'acc-a', MAX_AMOUNT + 1)), recordOf(entry('b-3', 'acc-b', 20)), recordOf(reusedId)));
    expect(response.batchItemFailures).toEqual([]);
    const dlq = consumer.dlq.commandsNamed('SendMessageCommand').map((command) => JSON.parse(String(command.input.MessageBody)) as { error: { name: string; kind: string; message: string } });
    expect(dlq.map((message) => [message.error.name, message.error.kind])).toEqual([
      ['SqlStatementError', 'permanent'],
      ['SqlStatementError', 'permanent'],
    ]);
    expect(dlq.map((message) => message.error.message)).toEqual([expect.stringMatching(/SQLSTATE 23514.*DatabaseErrorException: ERROR: .*; SQLState: 23514/), expect.stringContaining('SQLSTATE 23505')]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 10, 'acc-b': 20 });
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.dedup}`)).toBe(2);
  });

  test('a real serialization failure (SERIALIZABLE, a concurrent update) is retried and the effect applied once', async () => {
    const ledger = await createLedger(postgres.connection);
    const retried: unknown[] = [];
    const { session: interfering, close } = await interferingSession(postgres.connection, ledger, session());
    try {
      const consumer = ledgerConsumer(ledger, interfering, { isolation: 'serializable', retry: { sleep: noSleep, maxAttempts: 5, onRetry: (error) => retried.push(error) } });
      expect((await consumer.handle(sqsEvent(recordOf(entry('s-1', 'acc-a', 50))))).batchItemFailures).toEqual([]);
      expect(retried).toEqual([expect.any(SqlTransientError)]);
      expect((retried[0] as SqlTransientError).sqlState).toBe('40001');
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 1051 });
    } finally {
      await close();
    }
  });

  test('a paused cluster (DatabaseResumingException twice) is retried with the longer waits, then commits', async () => {
    const ledger = await createLedger(postgres.connection);
    const waits: number[] = [];
    const retried: unknown[] = [];
    const consumer = ledgerConsumer(ledger, session(), { retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, maxAttempts: 5, onRetry: (error) => retried.push(error) } });
    gateway.service.simulatePause(2);
    expect((await consumer.handle(sqsEvent(recordOf(entry('p-1', 'acc-a', 7))))).batchItemFailures).toEqual([]);
    expect(retried).toEqual([expect.any(DatabaseResumingError), expect.any(DatabaseResumingError)]);
    // Full jitter over the resuming ceilings (1 s, then 2 s) where the default's are 50 ms and 100 ms.
    expect(waits).toEqual([RESUMING_BACKOFF.baseMs * 0.5, RESUMING_BACKOFF.baseMs * 2 * 0.5]);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 7 });
  });

  test('a batch\'s effects of one shape go as one BatchExecuteStatement, and its increments as another: a handful of calls for 30 events', async () => {
    const ledger = await createLedger(postgres.connection);
    const rds = client();
    const send = jest.spyOn(rds, 'send');
    const consumer = ledgerConsumer(ledger, new DataApiSession({ client: rds, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }));
    const events = Array.from({ length: 30 }, (_, n) => entry(`x-${n}`, `acc-${n % 3}`, n + 1));
    expect((await consumer.handle(sqsEvent(...events.map((event) => recordOf(event))))).batchItemFailures).toEqual([]);
    // Begin; the tables' catalog facts (inside an invocation, the same statement as the time bounds); the dedup rows; SAVEPOINT; the 3 balances; the 30 entries; RELEASE; Commit.
    const sent = send.mock.calls.map(([command]) => command.constructor.name.replace(/Command$/, ''));
    expect(sent).toEqual(['BeginTransaction', 'ExecuteStatement', 'ExecuteStatement', 'ExecuteStatement', 'BatchExecuteStatement', 'BatchExecuteStatement', 'ExecuteStatement', 'CommitTransaction']);
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-0': 145, 'acc-1': 155, 'acc-2': 165 });
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.entries}`)).toBe(30);
  });

  test('an injected serialization failure is a real 40001 in the transaction: the strategy retries the transaction, and applies the event once', async () => {
    const draws = [0, ...Array.from({ length: 50 }, () => 1)];
    const faulty = await startDataApiGateway({ postgres: postgres.connection, service: { serializationFailures: { random: () => draws.shift() ?? 1, rate: 0.5 } } });
    try {
      const ledger = await createLedger(postgres.connection);
      const retried: unknown[] = [];
      const consumer = ledgerConsumer(ledger, session({ endpoint: faulty.endpoint }), { retry: { sleep: noSleep, maxAttempts: 3, onRetry: (error) => retried.push(error) } });
      expect((await consumer.handle(sqsEvent(recordOf(entry('f-1', 'acc-a', 7))))).batchItemFailures).toEqual([]);
      expect(faulty.service.serializationFailuresInjected()).toBe(1);
      expect(retried).toEqual([expect.objectContaining({ name: 'SqlTransientError', sqlState: '40001' })]);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 7 });
      expect(faulty.service.openTransactions()).toBe(0);
    } finally {
      await faulty.stop();
    }
  });

  test('a transaction whose work fails is rolled back and leaves nothing', async () => {
    const ledger = await createLedger(postgres.connection);
    const failing = session().transaction(async (transaction) => {
      await transaction.execute(sql`INSERT INTO ${sqlIdentifier(ledger.balances)} (account, amount) VALUES (${'acc-r'}, ${5})`);
      throw new Error('the handler gave up');
    });
    await expect(failing).rejects.toThrow('the handler gave up');
    expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.balances}`)).toBe(0);
    expect(gateway.service.openTransactions()).toBe(0);
  });
});

describe('the Data API\'s wire shapes', () => {
  test('records with column metadata, longs and decimals as exact strings, the rows changed, and each transaction status', async () => {
    const data = client();
    const target = { resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN };
    const { transactionId } = await data.send(new BeginTransactionCommand(target));
    const created = await data.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'CREATE TEMP TABLE t (id int4, big int8, amount numeric, ok bool, note text, raw bytea)' }));
    expect(created.numberOfRecordsUpdated).toBe(0);
    const inserted = await data.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'INSERT INTO t VALUES (1, 9007199254740993, 12.50, true, :note, :raw), (2, NULL, 0, false, NULL, NULL)', parameters: [{ name: 'note', value: { stringValue: 'a' } }, { name: 'raw', value: { blobValue: Uint8Array.from([1, 2]) } }] }));
    expect(inserted.numberOfRecordsUpdated).toBe(2);
    const selected = await data.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'SELECT * FROM t ORDER BY id', includeResultMetadata: true, resultSetOptions: { longReturnType: 'STRING', decimalReturnType: 'STRING' } }));
    expect(selected.columnMetadata?.map((column) => column.typeName)).toEqual(['int4', 'int8', 'numeric', 'bool', 'text', 'bytea']);
    expect(selected.records?.[0]).toEqual([{ stringValue: '1' }, { stringValue: '9007199254740993' }, { stringValue: '12.50' }, { booleanValue: true }, { stringValue: 'a' }, { blobValue: Uint8Array.from([1, 2]) }]);
    expect(selected.records?.[1]?.[1]).toEqual({ isNull: true });
    expect(await data.send(new RollbackTransactionCommand({ ...target, transactionId }))).toMatchObject({ transactionStatus: 'Rollback Complete' });
    const again = await data.send(new BeginTransactionCommand(target));
    expect(await data.send(new CommitTransactionCommand({ ...target, transactionId: again.transactionId }))).toMatchObject({ transactionStatus: 'Transaction Committed' });
  });

  test('a call on a transaction that was ended: 404 TransactionNotFoundException', async () => {
    const data = client();
    const target = { resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN };
    const { transactionId } = await data.send(new BeginTransactionCommand(target));
    await data.send(new RollbackTransactionCommand({ ...target, transactionId }));
    await expect(data.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'SELECT 1' }))).rejects.toMatchObject({ name: 'TransactionNotFoundException', $metadata: { httpStatusCode: 404 } });
  });

  test('a transaction idle past its timeout is rolled back: its next call is TransactionNotFoundException', async () => {
    const quick = await startDataApiGateway({ postgres: postgres.connection, service: { transactionIdleMs: 100 } });
    try {
      const ledger = await createLedger(postgres.connection);
      const stalled = new DataApiSession({ client: client(LOCAL_CREDENTIALS, quick.endpoint), resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }).transaction(async (transaction) => {
        await transaction.execute(sql`INSERT INTO ${sqlIdentifier(ledger.balances)} (account) VALUES (${'acc-idle'})`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await transaction.execute(sql`SELECT 1`);
      });
      await expect(stalled).rejects.toMatchObject({ name: 'SqlTransactionLostError', message: expect.stringContaining('TransactionNotFoundException') });
      expect(quick.service.openTransactions()).toBe(0);
      expect(await countOf(postgres.connection, `SELECT count(*) FROM ${ledger.balances}`)).toBe(0);
    } finally {
      await quick.stop();
    }
  });

  test('BatchExecuteStatement runs the statement once per parameter set, in the transaction', async () => {
    const ledger = await createLedger(postgres.connection);
    const data = client();
    const target = { resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN };
    const { transactionId } = await data.send(new BeginTransactionCommand(target));
    const sets = ['acc-1', 'acc-2', 'acc-3'].map((account) => [{ name: 'account', value: { stringValue: account } }, { name: 'amount', value: { longValue: 2 } }]);
    const batch = await data.send(new BatchExecuteStatementCommand({ ...target, transactionId, sql: `INSERT INTO ${ledger.balances} (account, amount) VALUES (:account, :amount)`, parameterSets: sets }));
    expect(batch.updateResults).toHaveLength(3);
    await data.send(new CommitTransactionCommand({ ...target, transactionId }));
    expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-1': 2, 'acc-2': 2, 'acc-3': 2 });
  });

  test('a statement past the statement timeout: StatementTimeoutException, which the session makes transient', async () => {
    const slow = await startDataApiGateway({ postgres: postgres.connection, service: { statementTimeoutMs: 100 } });
    try {
      const sleeping = new DataApiSession({ client: client(LOCAL_CREDENTIALS, slow.endpoint), resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }).transaction((transaction) => transaction.execute(sql`SELECT pg_sleep(${1})`));
      await expect(sleeping).rejects.toMatchObject({ name: 'SqlTransientError', message: expect.stringContaining('StatementTimeoutException') });
    } finally {
      await slow.stop();
    }
  });

  test('a request over 4 MiB is refused before it runs', async () => {
    const huge = session().transaction((transaction) => transaction.execute(sql`SELECT length(${'x'.repeat(4_200_000)})`));
    await expect(huge).rejects.toMatchObject({ name: 'DataApiRefusedError', errorName: 'BadRequestException', message: expect.stringContaining('exceeds the Data API\'s limit of 4194304 bytes') });
  });

  test('a row over 64 KB and a response over 1 MiB are refused, permanently', async () => {
    const refusedRow = session().transaction((transaction) => transaction.execute(sql`SELECT repeat('x', 70000) AS big`));
    await expect(refusedRow).rejects.toMatchObject({ name: 'DataApiRefusedError', errorName: 'UnsupportedResultException', message: expect.stringContaining('Packet for query is too large') });
    const refusedResponse = session().transaction((transaction) => transaction.execute(sql`SELECT repeat('x', 60000) AS part FROM generate_series(1, 20)`));
    await expect(refusedResponse).rejects.toMatchObject({ name: 'DataApiRefusedError', message: expect.stringContaining('Database response exceeded size limit') });
    expect(gateway.service.openTransactions()).toBe(0);
  });
});

describe('who may call', () => {
  test('an unknown cluster: 404 NotFoundException, a permanent refusal', async () => {
    const data = client();
    const resourceArn = `arn:aws:rds:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:cluster:elsewhere`;
    await expect(data.send(new BeginTransactionCommand({ resourceArn, secretArn: LOCAL_SECRET_ARN }))).rejects.toMatchObject({ name: 'NotFoundException', $metadata: { httpStatusCode: 404 } });
    const elsewhere = new DataApiSession({ client: data, resourceArn, secretArn: LOCAL_SECRET_ARN });
    await expect(elsewhere.transaction(async () => undefined)).rejects.toMatchObject({ name: 'DataApiRefusedError', errorName: 'NotFoundException' });
  });

  test('an unknown secret: SecretsErrorException, a permanent refusal', async () => {
    const unknown = session({ secretArn: `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:someone-else-XyZ123` });
    await expect(unknown.transaction(async () => undefined)).rejects.toEqual(expect.any(DataApiRefusedError));
    await expect(unknown.transaction(async () => undefined)).rejects.toMatchObject({ errorName: 'SecretsErrorException' });
  });

  describe('a function\'s role', () => {
    let guarded: DataApiGateway;
    let callers: CallerDirectory;

    beforeAll(async () => {
      callers = new CallerDirectory('refuse');
      const layer = new ContractLayer({ callers, facts: new EngineFacts({}) });
      layer.enforceIam(iamGuard(layer));
      guarded = await startDataApiGateway({ postgres: postgres.connection, layer });
    });
    afterAll(() => guarded.stop());

    test('with every grant: the strategy commits', async () => {
      const ledger = await createLedger(postgres.connection);
      const consumer = ledgerConsumer(ledger, session({ credentials: callers.register('Writer'), endpoint: guarded.endpoint }));
      expect((await consumer.handle(sqsEvent(recordOf(entry('g-1', 'acc-a', 3))))).batchItemFailures).toEqual([]);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 3 });
    });

    test('without rds-data:ExecuteStatement: 403 AccessDeniedException naming the action and the cluster; nothing committed', async () => {
      const data = client(callers.register('NoExecute'), guarded.endpoint);
      const target = { resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN };
      const { transactionId } = await data.send(new BeginTransactionCommand(target));
      await expect(data.send(new ExecuteStatementCommand({ ...target, transactionId, sql: 'SELECT 1' }))).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: `User: arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/no-execute-role/noexecute is not authorized to perform: rds-data:ExecuteStatement on resource: ${LOCAL_CLUSTER_ARN} because no identity-based policy allows the rds-data:ExecuteStatement action`,
        $metadata: { httpStatusCode: 403 },
      });
      await data.send(new RollbackTransactionCommand({ ...target, transactionId }));
      const refused = new DataApiSession({ client: data, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }).transaction((transaction) => transaction.execute(sql`SELECT 1`));
      await expect(refused).rejects.toMatchObject({ name: 'DataApiRefusedError', errorName: 'AccessDeniedException' });
    });

    test('without secretsmanager:GetSecretValue on the secret: refused before any statement', async () => {
      const data = client(callers.register('NoSecret'), guarded.endpoint);
      await expect(data.send(new BeginTransactionCommand({ resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }))).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining(`not authorized to perform: secretsmanager:GetSecretValue on resource: ${LOCAL_SECRET_ARN}`),
      });
      expect(guarded.service.openTransactions()).toBe(0);
    });
  });
});

describe('beside the other gateways', () => {
  // The engines are never reached here: a gateway starts without them.
  const engines = { dynamodb: 'http://127.0.0.1:9', sqs: 'http://127.0.0.1:9', kinesis: 'http://127.0.0.1:9' };

  test('startContractGateways serves the Data API in its layer when asked, and starts no Data API otherwise', async () => {
    const without = await startContractGateways({ engines });
    await without.stop();
    expect(without.dataApi).toBeUndefined();
    const gateways = await startContractGateways({ engines, unknownKeys: 'admin', dataApi: { postgres: postgres.connection } });
    try {
      const ledger = await createLedger(postgres.connection);
      const consumer = ledgerConsumer(ledger, session({ endpoint: gateways.dataApi?.endpoint }));
      expect((await consumer.handle(sqsEvent(recordOf(entry('w-1', 'acc-a', 4))))).batchItemFailures).toEqual([]);
      expect(await balancesOf(postgres.connection, ledger)).toEqual({ 'acc-a': 4 });
      expect(gateways.layer.stats().requestsChecked).toBeGreaterThanOrEqual(4);
    } finally {
      await gateways.stop();
    }
  });
});

/** Three roles: Writer's grants the Data API's actions and the secret; NoExecute's lacks ExecuteStatement; NoSecret's lacks the secret. */
function iamGuard(layer: ContractLayer): IamGuard {
  const dataApi = ['rds-data:BeginTransaction', 'rds-data:ExecuteStatement', 'rds-data:BatchExecuteStatement', 'rds-data:CommitTransaction', 'rds-data:RollbackTransaction'];
  const secret = { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:rds-db-credentials/*` };
  const grants = {
    Writer: [{ Effect: 'Allow', Action: dataApi, Resource: LOCAL_CLUSTER_ARN }, secret],
    NoExecute: [{ Effect: 'Allow', Action: dataApi.filter((action) => action !== 'rds-data:ExecuteStatement'), Resource: LOCAL_CLUSTER_ARN }, secret],
    NoSecret: [{ Effect: 'Allow', Action: dataApi, Resource: LOCAL_CLUSTER_ARN }],
  };
  const resources: Template['Resources'] = {};
  for (const [id, statements] of Object.entries(grants)) {
    const roleName = `${id.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}-role`;
    resources[`${id}Role`] = { Type: 'AWS::IAM::Role', Properties: { RoleName: roleName } };
    resources[id] = { Type: 'AWS::Lambda::Function', Properties: { Role: { 'Fn::GetAtt': [`${id}Role`, 'Arn'] } } };
    resources[`${id}Grant`] = { Type: 'AWS::IAM::Policy', Properties: { PolicyName: 'DataApi', Roles: [{ Ref: `${id}Role` }], PolicyDocument: { Version: '2012-10-17', Statement: statements } } };
  }
  const template: Template = { Resources: resources };
  const context = deployedResolveContext(template, { stackName: 'S', region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  const policies = compileRolePolicies(template, (value) => resolveValue(value, context));
  const principals = new Map(Object.keys(grants).map((id) => [id, functionPrincipal(policies, id, { functionName: id.toLowerCase(), accountId: LOCAL_ACCOUNT_ID })]));
  return new IamGuard({ policies, principals, lookups: { region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID }, tokens: layer.tokens });
}
