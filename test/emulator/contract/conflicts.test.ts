import { TransactionConflictTracker, type ConflictDecision, type ConflictTicket } from '../../../emulator/contract';

const schemas = { counters: ['pk'], events: ['pk', 'sk'] };
const key = (pk: string) => ({ pk: { S: pk } });
const update = (pk: string, TableName = 'counters') => ({ Update: { TableName, Key: key(pk), UpdateExpression: 'ADD n :one' } });
const put = (pk: string) => ({ Put: { TableName: 'counters', Item: { ...key(pk), n: { N: '1' } } } });
const transaction = (...TransactItems: unknown[]) => ({ TransactItems });

function admitted(decision: ConflictDecision): ConflictTicket {
  if (!decision.ok) throw new Error(`expected admission, got ${decision.error.code}`);
  return decision.ticket;
}

function refused(decision: ConflictDecision) {
  if (decision.ok) throw new Error('expected a refusal');
  return decision.error;
}

describe('TransactionConflictTracker', () => {
  let tracker: TransactionConflictTracker;
  beforeEach(() => {
    tracker = new TransactionConflictTracker({ keySchemas: schemas });
  });

  test('a transaction that touches an item another transaction holds is cancelled at that index', () => {
    admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));

    const error = refused(tracker.begin('TransactWriteItems', transaction(update('x'), update('y'), update('a'))));

    expect(error).toMatchObject({
      code: 'TransactionCanceledException',
      jsonType: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, TransactionConflict]',
      status: 400,
    });
    expect(error.fields?.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item.' },
    ]);
    expect(tracker.stats()).toMatchObject({ admitted: 1, transactionsCancelled: 1 });
  });

  test('transactions on disjoint items both pass', () => {
    admitted(tracker.begin('TransactWriteItems', transaction(update('a'), update('b'))));
    admitted(tracker.begin('TransactWriteItems', transaction(update('c'), update('a', 'events'))));
    expect(tracker.stats()).toMatchObject({ admitted: 2, transactionsCancelled: 0 });
  });

  test('once the first transaction has its answer, the item is free again', () => {
    const first = admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));
    tracker.end(first);
    admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));
    expect(tracker.inFlightItems()).toBe(1);
  });

  test('a plain write on an item a transaction holds fails with TransactionConflictException', () => {
    admitted(tracker.begin('TransactWriteItems', transaction(put('a'))));

    for (const [operation, input] of [
      ['PutItem', { TableName: 'counters', Item: { pk: { S: 'a' }, other: { S: 'x' } } }],
      ['UpdateItem', { TableName: 'counters', Key: key('a') }],
      ['DeleteItem', { TableName: 'counters', Key: key('a') }],
    ] as const) {
      expect(refused(tracker.begin(operation, input))).toMatchObject({ code: 'TransactionConflictException', jsonType: 'com.amazonaws.dynamodb.v20120810#TransactionConflictException' });
    }
    expect(tracker.stats().writesRejected).toBe(3);
  });

  test('a transaction that touches an item a plain write holds is cancelled', () => {
    admitted(tracker.begin('UpdateItem', { TableName: 'counters', Key: key('a') }));
    expect(refused(tracker.begin('TransactWriteItems', transaction(update('a')))).fields?.CancellationReasons).toEqual([
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item.' },
    ]);
  });

  test('plain writes never conflict with each other', () => {
    admitted(tracker.begin('PutItem', { TableName: 'counters', Item: key('a') }));
    admitted(tracker.begin('UpdateItem', { TableName: 'counters', Key: key('a') }));
    admitted(tracker.begin('BatchWriteItem', { RequestItems: { counters: [{ DeleteRequest: { Key: key('a') } }] } }));
    expect(tracker.stats().admitted).toBe(3);
  });

  test('keys are normalised: attribute order and number spelling name one item', () => {
    const composite = (sk: string, first: 'pk' | 'sk') =>
      first === 'pk' ? { pk: { S: 'p' }, sk: { N: sk } } : { sk: { N: sk }, pk: { S: 'p' } };
    admitted(tracker.begin('TransactWriteItems', transaction({ Update: { TableName: 'events', Key: composite('1', 'pk') } })));
    expect(refused(tracker.begin('UpdateItem', { TableName: 'events', Key: composite('1.0', 'sk') })).code).toBe('TransactionConflictException');
  });

  test('a Put’s item is known from the key schema', () => {
    admitted(tracker.begin('TransactWriteItems', transaction(put('a'))));
    expect(refused(tracker.begin('TransactWriteItems', transaction(update('a')))).code).toBe('TransactionCanceledException');
  });

  test('TransactGetItems touching an item any write holds is cancelled; reads do not hold', () => {
    const write = admitted(tracker.begin('BatchWriteItem', { RequestItems: { counters: [{ PutRequest: { Item: key('a') } }] } }));
    const get = (pk: string) => ({ Get: { TableName: 'counters', Key: key(pk) } });

    expect(refused(tracker.begin('TransactGetItems', { TransactItems: [get('b'), get('a')] })).fields?.CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item.' },
    ]);
    tracker.end(write);
    admitted(tracker.begin('TransactGetItems', { TransactItems: [get('a')] }));
    admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));
    expect(tracker.stats()).toMatchObject({ readsCancelled: 1, admitted: 3 });
  });

  test('a retry of an in-flight ClientRequestToken gets TransactionInProgressException, not a conflict', () => {
    const input = { ...transaction(update('a')), ClientRequestToken: 'token-1' };
    const first = admitted(tracker.begin('TransactWriteItems', input));

    expect(refused(tracker.begin('TransactWriteItems', input))).toMatchObject({ code: 'TransactionInProgressException', rule: 'dynamodb.transaction-in-progress' });
    tracker.end(first);
    admitted(tracker.begin('TransactWriteItems', input));
    expect(tracker.stats()).toMatchObject({ inProgressRejected: 1, transactionsCancelled: 0 });
  });

  test('a refused request holds nothing, and end is idempotent', () => {
    const first = admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));
    refused(tracker.begin('TransactWriteItems', transaction(update('a'), update('b'))));
    tracker.end(first);
    tracker.end(first);
    expect(tracker.inFlightItems()).toBe(0);
  });

  test('other operations are admitted and hold nothing', () => {
    admitted(tracker.begin('TransactWriteItems', transaction(update('a'))));
    admitted(tracker.begin('GetItem', { TableName: 'counters', Key: key('a') }));
    admitted(tracker.begin('Query', { TableName: 'counters' }));
    expect(tracker.inFlightItems()).toBe(1);
  });
});
