/**
 * Issue 39, item 1: a batch is an optimisation, never a semantics. On a real PostgreSQL, the state
 * the SQL strategy leaves, and each event's outcome, are those of applying the events one at a
 * time in their order, wherever the batches fall: a CHECK that an intermediate balance breaks, a
 * statement that reads what an earlier event of its batch wrote, a row created by increments that
 * sum to zero, a trigger that sees every change. Run over a local session and over the Data API
 * under both behaviours of a failed statement (which the failures' fallbacks differ by).
 */
import fc from 'fast-check';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { DataApiSession, type SqlSession } from '../../../../../lambdas/runtime';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../../../../emulator/engines/postgres';
import { PostgresSqlSession } from '../../../../../emulator/engines/postgres-session';
import { LOCAL_CLUSTER_ARN, LOCAL_SECRET_ARN, startDataApiGateway, type DataApiGateway } from '../../../../../emulator/gateway/data-api-gateway';
import type { StatementFailureBehaviour } from '../../../../../emulator/gateway/data-api-service';
import { accountEvents, createAccounts, drive, emptyAccounts, readState, type AccountEvent, type Accounts } from './accounts-fixture';

let postgres: RunningPostgres;
let local: PostgresSqlSession;
const gateways = new Map<StatementFailureBehaviour, { gateway: DataApiGateway; client: RDSDataClient }>();

beforeAll(async () => {
  postgres = await startPostgres();
  local = new PostgresSqlSession(postgres.connection);
  for (const statementFailures of ['abort-transaction', 'keep-transaction'] as const) {
    const gateway = await startDataApiGateway({ postgres: postgres.connection, service: { statementFailures } });
    gateways.set(statementFailures, { gateway, client: new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 }) });
  }
});

afterAll(async () => {
  for (const { gateway, client } of gateways.values()) {
    client.destroy();
    await gateway.stop();
  }
  await local?.close();
  await postgres?.stop();
});

const SESSIONS: readonly [string, () => SqlSession][] = [
  ['a local session', () => local],
  ...(['abort-transaction', 'keep-transaction'] as const).map((behaviour): [string, () => SqlSession] => [
    `the Data API (${behaviour})`,
    () => new DataApiSession({ client: (gateways.get(behaviour) as { client: RDSDataClient }).client, resourceArn: LOCAL_CLUSTER_ARN, secretArn: LOCAL_SECRET_ARN }),
  ]),
];

const ONE_BY_ONE = (events: readonly AccountEvent[]) => new Set(events.map((_, position) => position));
const ONE_BATCH = new Set<number>();

/** The outcomes and state of `events` applied in batches after `boundaries`, on fresh tables. */
async function outcomeOf(session: SqlSession, events: readonly AccountEvent[], boundaries: ReadonlySet<number>, ordered: boolean) {
  const accounts = await createAccounts(postgres.connection);
  const outcomes = await drive(session, accounts, events, boundaries, ordered);
  return { outcomes, state: await readState(postgres.connection, accounts) };
}

describe.each(SESSIONS)('through %s', (_name, session) => {
  test.each([false, true])('the issue\'s case: a withdrawal of 100, then a deposit of 100, on a balance of 0 (ordered %p)', async (ordered) => {
    const events: AccountEvent[] = [{ kind: 'move', id: 'withdraw', account: 'a', amount: -100 }, { kind: 'move', id: 'deposit', account: 'a', amount: 100 }];
    const apart = await outcomeOf(session(), events, ONE_BY_ONE(events), ordered);
    const together = await outcomeOf(session(), events, ONE_BATCH, ordered);
    expect(apart.outcomes).toEqual({ withdraw: 'SqlStatementError', deposit: 'applied' });
    expect(apart.state.balances).toEqual({ a: 100 });
    expect(together).toEqual(apart);
  });

  test('a statement reads the balance as the events before it in its batch left it', async () => {
    const events: AccountEvent[] = [
      { kind: 'move', id: 'e1', account: 'a', amount: 50 },
      { kind: 'snapshot', id: 'e2', account: 'a' },
      { kind: 'move', id: 'e3', account: 'a', amount: 25 },
      { kind: 'snapshot', id: 'e4', account: 'a' },
    ];
    const together = await outcomeOf(session(), events, ONE_BATCH, false);
    expect(together.state.snapshots).toEqual({ e2: 50, e4: 75 });
    expect(together).toEqual(await outcomeOf(session(), events, ONE_BY_ONE(events), false));
  });

  test('increments that sum to zero still create their row, as one at a time they would', async () => {
    const events: AccountEvent[] = [{ kind: 'move', id: 'in', account: 'b', amount: 5 }, { kind: 'move', id: 'out', account: 'b', amount: -5 }];
    const together = await outcomeOf(session(), events, ONE_BATCH, false);
    expect(together.state.balances).toEqual({ b: 0 });
    expect(together).toEqual(await outcomeOf(session(), events, ONE_BY_ONE(events), false));
  });

  test('a trigger sees every change of its row, not one sum of them', async () => {
    const events: AccountEvent[] = [1, 2, 3].map((amount) => ({ kind: 'audited', id: `x${amount}`, account: 'a', amount }));
    const together = await outcomeOf(session(), events, ONE_BATCH, false);
    expect(together.state.auditRows).toEqual(['a=1', 'a=3', 'a=6']);
    expect(together).toEqual(await outcomeOf(session(), events, ONE_BY_ONE(events), false));
  });
});

describe('a property: wherever the batches fall, the outcomes and the state are the one-at-a-time ones', () => {
  let accounts: Accounts;

  beforeAll(async () => {
    accounts = await createAccounts(postgres.connection);
  });

  async function run(session: SqlSession, events: readonly AccountEvent[], boundaries: ReadonlySet<number>, ordered: boolean) {
    await emptyAccounts(postgres.connection, accounts);
    const outcomes = await drive(session, accounts, events, boundaries, ordered);
    return { outcomes, state: await readState(postgres.connection, accounts) };
  }

  test.each(SESSIONS)('through %s', async (_name, session) => {
    await fc.assert(
      fc.asyncProperty(accountEvents(), fc.uniqueArray(fc.nat(9)), fc.boolean(), async (events, cuts, ordered) => {
        const expected = await run(session(), events, ONE_BY_ONE(events), ordered);
        expect(await run(session(), events, new Set(cuts), ordered)).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
