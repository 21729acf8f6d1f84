/**
 * Where `dlq inspect` reads a SQL consumer's dedup rows: the settings the template resolves, and
 * those it does not (a new cluster's secret, on AWS) from the function's configuration, once; a
 * function that names none is said, by name, before any Data API call.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import { SQL_ENV } from '../../../aws/consumer-env';
import { readSqlApplied, resolvedStore } from '../../../operations/dlq/sql-dedup-rows';
import { asClient, FakeClient } from '../../helpers/fakes';

const STORE = { functionName: 'invoice-payments-fn', table: 'eo_dedup', resourceArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:effects', database: 'effects' };
const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!cluster-1-AbCdEf';

test('a setting the template left unresolved is read from the function\'s environment; a resolved store asks nothing', async () => {
  const lambda = new FakeClient(() => ({ Environment: { Variables: { [SQL_ENV.secretArn]: SECRET, [SQL_ENV.resourceArn]: 'ignored: the template resolved it' } } }));
  expect(await resolvedStore(asClient<LambdaClient>(lambda), STORE)).toEqual({ ...STORE, secretArn: SECRET });
  expect(lambda.commands.map((command) => [command.name, command.input])).toEqual([['GetFunctionConfigurationCommand', { FunctionName: STORE.functionName }]]);
  await resolvedStore(asClient<LambdaClient>(lambda), { ...STORE, secretArn: SECRET });
  expect(lambda.commands).toHaveLength(1);
});

test('a function that names no secret is said by name, and no Data API call is made', async () => {
  const [lambda, rdsData] = [new FakeClient(() => ({ Environment: { Variables: {} } })), new FakeClient()];
  await expect(readSqlApplied({ lambda: asClient<LambdaClient>(lambda), rdsData: asClient<RDSDataClient>(rdsData) }, STORE, 'invoice-payments', ['e-1'])).rejects.toThrow(
    `invoice-payments-fn names no ${SQL_ENV.secretArn} in its environment: its SQL dedup rows cannot be read`,
  );
  expect(rdsData.commands).toEqual([]);
});
