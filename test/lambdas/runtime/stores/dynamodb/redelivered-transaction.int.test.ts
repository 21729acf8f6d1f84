/**
 * A batch redelivered within DynamoDB's 10-minute idempotency window, whose transaction comes out
 * byte for byte the same as the first delivery's (same events, same effects), on DynamoDB Local:
 * it must be answered as duplicates, not as a success that wrote nothing. With a token derived
 * from the actions alone, DynamoDB took the second transaction for a retry of the first and
 * answered success, and the runtime counted the events as applied again.
 */
import { TransactionalCommitter } from '../../../../../lambdas/runtime/stores/dynamodb/committer';
import { increment } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { destroyClients, type LocalClients } from '../../../../../emulator/engines';
import { testClients } from '../../../../helpers/engines';
import { idempotencyTable, itemByPk, pkTable } from '../../../../helpers/fixtures';

let clients: LocalClients;
beforeAll(() => {
  clients = testClients();
});
afterAll(() => destroyClients(clients));

test('the same batch committed by two deliveries: applied once, then duplicates, and the counter counts once', async () => {
  const [dedupTable, counters] = await Promise.all([idempotencyTable(clients.dynamodb), pkTable(clients.dynamodb, 'counters')]);
  const batch = [{ index: 0, eventId: 'evt-a', payloadHash: 'hash-a', effects: [increment(counters.tableName, { pk: 'page#home' }, 'views')] }];
  // One clock for both, so that their dedup records' expiry, and so their transactions, are the same.
  const now = new Date();
  const delivery = () => new TransactionalCommitter({ dynamodb: clients.dynamodb, dedup: { table: dedupTable, consumer: 'counter' }, now: () => now }).commitBatch(batch);
  expect((await delivery()).get(0)).toEqual({ status: 'applied' });
  expect((await delivery()).get(0)).toEqual({ status: 'duplicate', conflictingPayload: false });
  expect(await itemByPk(clients.dynamodb, counters.tableName, 'page#home')).toMatchObject({ views: 1 });
});
