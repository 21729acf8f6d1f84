/**
 * The Data API session refuses a client that retries by itself: the SDK's retry of a statement
 * whose answer was lost would run it twice inside one transaction. The refusal comes before any
 * request (the client points nowhere and is never called); the statements themselves are tested
 * through the local Data API on a real PostgreSQL (test/emulator/gateway/data-api.int.test.ts).
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { ConfigurationError, DataApiSession, sql } from '../../../../../lambdas/runtime';

const target = { resourceArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:ledger', secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ledger' };
const nowhere = { region: 'eu-west-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } };

test.each([
  ['the SDK default (3 attempts)', {}, 3],
  ['maxAttempts: 5', { maxAttempts: 5 }, 5],
])('a client with %s is refused, naming the setting, before any call', async (_, retries, attempts) => {
  const client = new RDSDataClient({ ...nowhere, ...retries });
  const send = jest.spyOn(client, 'send');
  const session = new DataApiSession({ client, ...target });
  const refusal = new RegExp(`needs an RDSDataClient with maxAttempts: 1 \\(this one makes ${attempts}\\)`);
  await expect(session.transaction(async () => 'never')).rejects.toThrow(refusal);
  await expect(session.transaction(async () => 'never')).rejects.toBeInstanceOf(ConfigurationError);
  await expect(session.executeAutocommit(sql`SELECT 1`)).rejects.toThrow(refusal);
  expect(send).not.toHaveBeenCalled();
});
