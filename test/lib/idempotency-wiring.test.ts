/**
 * The `idempotency` prop: the table's name in IDEMPOTENCY_TABLE and exactly the actions the
 * runtime's use of it needs (PutItem and BatchGetItem for dedup records in transactions; Powertools'
 * four for external effects), and a clear refusal of a second way to name it.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { IdempotencyTable, IdempotencyUse, QueueConsumer, TableAction, type IdempotencyWiring, type QueueConsumerProps } from '../../lib';
import { FIXTURE_HANDLER, grantedActions, logicalId, testStack } from './support';

function synth(idempotencyOf: (table: IdempotencyTable) => IdempotencyWiring, more: (table: IdempotencyTable) => Partial<QueueConsumerProps> = () => ({})): Template {
  const { stack, alarmTopic } = testStack();
  const table = new IdempotencyTable(stack, 'Idempotency');
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, idempotency: idempotencyOf(table), ...more(table) });
  return Template.fromStack(stack);
}

const tableId = (template: Template): string => logicalId(template, 'AWS::DynamoDB::Table', 'Idempotency');

test('by default: PutItem and BatchGetItem on the table, nothing else, and its name in IDEMPOTENCY_TABLE', () => {
  const template = synth((table) => ({ table }));
  expect(grantedActions(template, 'dynamodb')).toEqual({ [tableId(template)]: ['dynamodb:BatchGetItem', 'dynamodb:PutItem'] });
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function')) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
  expect(fn?.Properties.Environment.Variables.IDEMPOTENCY_TABLE).toEqual({ Ref: tableId(template) });
});

test('external effects get Powertools\' four actions; both uses, the union', () => {
  const external = synth((table) => ({ table, uses: [IdempotencyUse.EXTERNAL_EFFECTS] }));
  expect(grantedActions(external, 'dynamodb')).toEqual({ [tableId(external)]: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] });
  const both = synth((table) => ({ table: table.table, uses: [IdempotencyUse.TRANSACTIONS, IdempotencyUse.EXTERNAL_EFFECTS] }));
  expect(grantedActions(both, 'dynamodb')).toEqual({ [tableId(both)]: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] });
});

test('refused: the table named twice, IDEMPOTENCY_TABLE in environment, and uses that are not IdempotencyUse values', () => {
  expect(() => synth((table) => ({ table }), (table) => ({ tables: { IDEMPOTENCY_TABLE: { table: table.table, actions: [TableAction.PUT_ITEM] } } }))).toThrow('give the idempotency table as idempotency or as tables.IDEMPOTENCY_TABLE, not both');
  expect(() => synth((table) => ({ table }), () => ({ environment: { IDEMPOTENCY_TABLE: 'other' } }))).toThrow('environment must not set IDEMPOTENCY_TABLE: idempotency sets it');
  expect(() => synth((table) => ({ table, uses: [] }))).toThrow(/idempotency.uses must list IdempotencyUse values/);
  expect(() => synth((table) => ({ table, uses: ['everything' as IdempotencyUse] }))).toThrow(/idempotency.uses must list IdempotencyUse values \(transactions, external-effects\) \(given \["everything"\]\)/);
});

test('an IdempotencyTable from a second copy of the package (not this copy\'s class) is read by its shape', () => {
  const { stack, alarmTopic } = testStack();
  // What another copy's IdempotencyTable looks like to this one: a construct holding the table.
  class OtherCopy extends Construct {
    public readonly table = new Table(this, 'Table', { partitionKey: { name: 'id', type: AttributeType.STRING } });
  }
  const other = new OtherCopy(stack, 'Idempotency');
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, idempotency: { table: other as unknown as ITable } });
  const template = Template.fromStack(stack);
  expect(grantedActions(template, 'dynamodb')).toEqual({ [tableId(template)]: ['dynamodb:BatchGetItem', 'dynamodb:PutItem'] });
});
