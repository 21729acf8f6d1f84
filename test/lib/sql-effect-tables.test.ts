/**
 * `SqlEffectDatabase.connect`'s `effectTables`: the tables a SQL consumer's handlers write to, put
 * in `SQL_EFFECT_TABLES` for the tools (`eo replay --generation` reads them), and refused with
 * their name when they are not plain identifiers, repeat, or name the dedup table.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { QueueConsumer, SQL_ENV, SqlEffectDatabase, type SqlConnectOptions } from '../../lib';
import { FIXTURE_HANDLER, testStack } from './support';

function variablesAfter(options?: SqlConnectOptions): Record<string, unknown> | undefined {
  const { stack, alarmTopic } = testStack();
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic });
  const consumer = new QueueConsumer(stack, 'Ledger', { consumerName: 'ledger', entry: FIXTURE_HANDLER, alarmTopic });
  database.connect(consumer.function, options);
  const [fn] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { CONSUMER_NAME: 'ledger' } } } })) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
  return fn?.Properties.Environment.Variables;
}

test('connect puts the declared effect tables in SQL_EFFECT_TABLES, and sets nothing when none are declared', () => {
  expect(variablesAfter({ effectTables: ['payments', 'ledger.invoices'] })?.[SQL_ENV.effectTables]).toBe('payments,ledger.invoices');
  expect(variablesAfter()).not.toHaveProperty(SQL_ENV.effectTables);
});

test.each<[string, readonly string[], RegExp]>([
  ['an empty list', [], /effectTables must name at least one table/],
  ['a name that is not an identifier', ['payments; DROP TABLE x'], /effectTables\[0\] must match .* \(given "payments; DROP TABLE x"\)/],
  ['a table twice', ['payments', 'Payments'], /effectTables names "Payments" twice/],
  ['the dedup table', ['eo_dedup'], /effectTables must not name the dedup table \(given "eo_dedup"\)/],
])('connect fails for %s', (_, effectTables, error) => {
  expect(() => variablesAfter({ effectTables })).toThrow(error);
});
