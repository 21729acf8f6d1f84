/**
 * The Data API's errors as the SQL strategy reads them: each error of its model to transient,
 * permanent, resuming or "by its SQLSTATE", the SQLSTATE read out of the message, and the longer
 * waits a resuming database gets from the retries. The errors are the SDK's own classes, built
 * as its deserializer builds them.
 */
import * as RdsData from '@aws-sdk/client-rds-data';
import { withRetries } from '../../../../../lambdas/runtime/core/backoff';
import { classifyError } from '../../../../../lambdas/runtime/core/classify';
import { FailureKind } from '../../../../../lambdas/runtime/core/errors';
import { classifySqlFailure, DATA_API_ERRORS, dataApiFailure, DataApiRefusedError, DatabaseResumingError, DataApiStatementError, RESUMING_BACKOFF, SqlSchemaMissingError, SqlStatementError, SqlTransactionLostError, SqlTransientError, sqlStateInMessage } from '../../../../../lambdas/runtime';
import { decidedByState } from '../../../../../lambdas/runtime/core/errors';

/** The SDK's exception for `name`, as the client throws it. */
function sdkError(name: string, message: string): Error {
  const Exception = (RdsData as unknown as Record<string, new (options: object) => Error>)[name];
  if (Exception === undefined) return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 } });
  return new Exception({ message, $metadata: { httpStatusCode: DATA_API_ERRORS[name]?.status } });
}

/** What the strategy makes of a failure of the session: its kind after classifySqlFailure. */
const kindOf = (error: unknown): FailureKind => classifyError(classifySqlFailure(dataApiFailure(error), 'a statement'));

describe('each documented error', () => {
  test.each(Object.entries(DATA_API_ERRORS).filter(([, rule]) => rule.kind !== 'sqlstate'))('%s is %s', (name, rule) => {
    const mapped = dataApiFailure(sdkError(name, 'something went wrong'));
    const expected = { transient: SqlTransientError, permanent: DataApiRefusedError, resuming: DatabaseResumingError, lost: SqlTransactionLostError }[rule.kind as 'transient' | 'permanent' | 'resuming' | 'lost'];
    expect(mapped).toBeInstanceOf(expected);
    expect(kindOf(sdkError(name, 'something went wrong'))).toBe(rule.kind === 'permanent' ? FailureKind.PERMANENT : FailureKind.TRANSIENT);
  });

  test('every exception class of the SDK\'s model has a rule', () => {
    const exported = Object.keys(RdsData).filter((name) => /(Exception|Error)$/.test(name) && name !== 'RDSDataServiceException');
    expect(exported.filter((name) => DATA_API_ERRORS[name] === undefined)).toEqual([]);
  });

  test('without the mapping the SDK\'s own classification would be wrong for three of them', () => {
    // A 400 and two 404s: 4xx reads as permanent to the runtime's HTTP rule.
    for (const name of ['DatabaseResumingException', 'StatementTimeoutException', 'TransactionNotFoundException']) expect(classifyError(sdkError(name, 'x'))).toBe(FailureKind.PERMANENT);
  });
});

describe('statement errors carry their SQLSTATE in the message', () => {
  test.each([
    ['ERROR: duplicate key value violates unique constraint "entries_pkey"; SQLState: 23505', '23505', FailureKind.PERMANENT],
    ['ERROR: new row for relation "entries" violates check constraint "entries_amount_check"; SQLState: 23514', '23514', FailureKind.PERMANENT],
    ['ERROR: could not serialize access due to concurrent update; SQLState: 40001', '40001', FailureKind.TRANSIENT],
    ['ERROR: deadlock detected\n  Detail: Process 1 waits for ShareLock; SQLState: 40P01', '40P01', FailureKind.TRANSIENT],
    ['ERROR: relation "missing" does not exist\n  Position: 15; SQLState: 42P01', '42P01', FailureKind.TRANSIENT],
    ['ERROR: column "missing" does not exist\n  Position: 8; SQLState: 42703', '42703', FailureKind.PERMANENT],
  ])('%s', (message, sqlState, kind) => {
    expect(sqlStateInMessage(message)).toBe(sqlState);
    for (const name of ['DatabaseErrorException', 'BadRequestException']) {
      const mapped = dataApiFailure(sdkError(name, message));
      expect(mapped).toBeInstanceOf(DataApiStatementError);
      expect(mapped).toMatchObject({ sqlState, errorName: name });
      const classified = classifySqlFailure(mapped, 'an effect');
      expect(classified).toBeInstanceOf(kind === FailureKind.PERMANENT ? SqlStatementError : SqlTransientError);
      if (sqlState === '42P01') expect(classified).toBeInstanceOf(SqlSchemaMissingError);
      // A permanent statement failure may be the stored state's (a CHECK, a UNIQUE key): an ordered group waits behind it.
      expect(decidedByState(classified)).toBe(kind === FailureKind.PERMANENT);
      expect(classified).toMatchObject({ sqlState });
    }
  });

  test('a database error without a SQLSTATE is transient; a bad request without one is permanent', () => {
    expect(kindOf(sdkError('DatabaseErrorException', 'Communications link failure'))).toBe(FailureKind.TRANSIENT);
    expect(kindOf(sdkError('BadRequestException', 'Invalid parameter value'))).toBe(FailureKind.PERMANENT);
  });
});

describe('cases told apart by the message', () => {
  test.each([
    ['DatabaseErrorException', 'Transaction is still running a query', FailureKind.TRANSIENT],
    ['BadRequestException', 'Transaction AQID is not found', FailureKind.TRANSIENT],
    ['NotFoundException', 'Transaction AQID can\'t be found', FailureKind.TRANSIENT],
    ['TransactionNotFoundException', 'Transaction AQID is not found: Transaction has been aborted due to an error from a previous call.', FailureKind.TRANSIENT],
    ['NotFoundException', 'Resource arn:aws:rds:us-east-1:1:cluster:x not found', FailureKind.PERMANENT],
    ['SecretsErrorException', 'Data API timed out retrieving the secret', FailureKind.TRANSIENT],
    ['SecretsErrorException', 'The secret couldn\'t be decrypted', FailureKind.PERMANENT],
    ['DatabaseErrorException', 'Database response exceeded size limit', FailureKind.PERMANENT],
    ['BadRequestException', 'Packet for query is too large', FailureKind.PERMANENT],
  ])('%s "%s" is %s', (name, message, kind) => {
    expect(kindOf(sdkError(name, message))).toBe(kind);
  });

  test('a transaction not found, under any name, is a lost transaction: right after a failed statement, an aborted one', () => {
    for (const [name, message] of [['TransactionNotFoundException', 'Transaction AQID is not found'], ['BadRequestException', 'Transaction AQID is not found'], ['NotFoundException', 'Transaction AQID can\'t be found']] as const) {
      expect(dataApiFailure(sdkError(name, message))).toBeInstanceOf(SqlTransactionLostError);
    }
    expect(dataApiFailure(sdkError('NotFoundException', 'Resource x not found'))).not.toBeInstanceOf(SqlTransactionLostError);
  });

  test('anything that is not a Data API error is left to the runtime\'s own classification', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(dataApiFailure(reset)).toBe(reset);
    expect(kindOf(reset)).toBe(FailureKind.TRANSIENT);
  });
});

describe('a resuming database is waited out (item 4 of issue 39)', () => {
  const resuming = () => dataApiFailure(sdkError('DatabaseResumingException', 'resuming'));

  test('the retries read the error\'s backoff, full jitter over 1 s, 2 s, 4 s, 8 s, 8 s, and a resume uses up no attempt', async () => {
    const waits: number[] = [];
    let calls = 0;
    // Three attempts, the default: a resume of five refusals in a row used to exhaust them.
    const result = await withRetries(
      async () => {
        calls += 1;
        if (calls <= 5) throw resuming();
        return 'committed';
      },
      { maxAttempts: 3, random: () => 0.999, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('committed');
    expect(waits).toEqual([999, 1998, 3996, 7992, 7992]);
    expect(RESUMING_BACKOFF).toEqual({ baseMs: 1000, capMs: 8000, waitOutMs: 60_000 });
  });

  test('a resume is waited out only while the budget can cover the next wait: then its error, transient, for the source to redeliver', async () => {
    let now = 0;
    const budget = { remainingMs: () => Math.max(0, 5_000 - now), exhausted: () => now >= 5_000 };
    const attempt = withRetries(async () => { throw resuming(); }, { maxAttempts: 3, random: () => 0.999, budget, sleep: async (ms) => void (now += ms) });
    await expect(attempt).rejects.toBeInstanceOf(DatabaseResumingError);
    expect(now).toBeLessThan(5_000);
    expect(now).toBeGreaterThan(2_500);
  });

  test('without a budget, the waits stop at waitOutMs, then count as attempts', async () => {
    let waited = 0;
    const attempt = withRetries(async () => { throw resuming(); }, { maxAttempts: 3, random: () => 0.999, sleep: async (ms) => void (waited += ms) });
    await expect(attempt).rejects.toMatchObject({ name: 'RetriesExhaustedError' });
    expect(waited).toBeGreaterThanOrEqual(RESUMING_BACKOFF.waitOutMs);
    expect(waited).toBeLessThan(RESUMING_BACKOFF.waitOutMs + 3 * RESUMING_BACKOFF.capMs);
  });

  test('other transient failures keep the retries\' own backoff and attempts', async () => {
    const waits: number[] = [];
    await expect(
      withRetries(async () => {
        throw dataApiFailure(sdkError('ServiceUnavailableError', 'unavailable'));
      }, { maxAttempts: 3, random: () => 0.999, sleep: async (ms) => void waits.push(ms) }),
    ).rejects.toMatchObject({ name: 'RetriesExhaustedError' });
    expect(waits).toEqual([49, 99]);
  });
});
