/**
 * `tables` on every consumer construct: each table gets exactly the DynamoDB actions its entry
 * asks for (a bare table the documented default set), its customer-managed key what aws-cdk-lib's
 * own data grants give, and an entry the construct cannot grant fails at synth time, naming it.
 */
import { Lazy, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import {
  type ConsumerProps,
  DEFAULT_TABLE_ACTIONS,
  DynamoStreamConsumer,
  KinesisConsumer,
  QueueConsumer,
  TableAction,
  type TableGrant,
} from '../../lib';
import { FIXTURE_HANDLER, grantedActions, logicalId, testStack } from './support';

function countersTable(stack: Stack, encryptionKey?: Key): Table {
  const encryption = encryptionKey ? TableEncryption.CUSTOMER_MANAGED : undefined;
  return new Table(stack, 'Counters', { partitionKey: { name: 'pk', type: AttributeType.STRING }, encryption, encryptionKey });
}

/** A consumer of each kind, built with `tables`. */
const CONSUMERS = {
  QueueConsumer: (stack: Stack, props: ConsumerProps) => new QueueConsumer(stack, 'Consumer', props),
  KinesisConsumer: (stack: Stack, props: ConsumerProps) => new KinesisConsumer(stack, 'Consumer', props),
  DynamoStreamConsumer: (stack: Stack, props: ConsumerProps) => {
    const source = new Table(stack, 'Source', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_IMAGE });
    return new DynamoStreamConsumer(stack, 'Consumer', { ...props, table: source });
  },
} as const;
type ConsumerKind = keyof typeof CONSUMERS;

function consumerProps(alarmTopic: Topic, tables: Readonly<Record<string, TableGrant>>): ConsumerProps {
  return { consumerName: 'counter', entry: FIXTURE_HANDLER, alarmTopic, tables };
}

/** A consumer of `kind` whose `tables` the callback builds on its stack's counters table; its template. */
function synth(tablesOf: (table: Table) => Record<string, TableGrant>, options: { kind?: ConsumerKind; key?: boolean } = {}): Template {
  const { stack, alarmTopic } = testStack();
  const table = countersTable(stack, options.key ? new Key(stack, 'TableKey') : undefined);
  CONSUMERS[options.kind ?? 'QueueConsumer'](stack, consumerProps(alarmTopic, tablesOf(table)));
  return Template.fromStack(stack);
}

const sorted = (actions: readonly string[]): string[] => [...actions].sort();
const countersId = (template: Template): string => logicalId(template, 'AWS::DynamoDB::Table', 'Counters');

describe('tables', () => {
  test('the default set is what the runtime strategies call, and no Scan, Query, batch write, describe or stream read', () => {
    expect(sorted(DEFAULT_TABLE_ACTIONS)).toEqual(
      sorted(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']),
    );
  });

  test.each(Object.keys(CONSUMERS) as ConsumerKind[])('%s grants a bare table the default set, and its name', (kind) => {
    const template = synth((table) => ({ COUNTERS_TABLE: table }), { kind });
    expect(grantedActions(template, 'dynamodb')).toMatchObject({ [countersId(template)]: sorted(DEFAULT_TABLE_ACTIONS) });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ COUNTERS_TABLE: { Ref: countersId(template) } }) },
    });
  });

  test.each(Object.keys(CONSUMERS) as ConsumerKind[])('%s grants { table, actions } exactly its actions, and its name', (kind) => {
    const template = synth((table) => ({ COUNTERS_TABLE: { table, actions: [TableAction.UPDATE_ITEM] } }), { kind });
    expect(grantedActions(template, 'dynamodb')).toMatchObject({ [countersId(template)]: ['dynamodb:UpdateItem'] });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ COUNTERS_TABLE: { Ref: countersId(template) } }) },
    });
  });

  test('grants nothing else on DynamoDB: the queue consumer has no other table statement', () => {
    const template = synth((table) => ({ COUNTERS_TABLE: { table, actions: [TableAction.PUT_ITEM, TableAction.QUERY] } }));
    expect(grantedActions(template, 'dynamodb')).toEqual({ [countersId(template)]: ['dynamodb:PutItem', 'dynamodb:Query'] });
  });

  test('a table named under two variables gets both entries\' actions; an action listed twice is granted once', () => {
    const template = synth((table) => ({
      COUNTERS_TABLE: { table, actions: [TableAction.UPDATE_ITEM, TableAction.UPDATE_ITEM] },
      REPORT_TABLE: { table, actions: [TableAction.GET_ITEM] },
    }));
    expect(grantedActions(template, 'dynamodb')).toEqual({ [countersId(template)]: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ COUNTERS_TABLE: { Ref: countersId(template) }, REPORT_TABLE: { Ref: countersId(template) } }) },
    });
  });

  test('a table under the AWS-managed key needs no key grant', () => {
    const template = synth((table) => ({ COUNTERS_TABLE: table }));
    expect(grantedActions(template, 'kms')).toEqual({});
  });
});

describe('tables with a customer-managed key', () => {
  /** What aws-cdk-lib's grantReadWriteData gives on the key, the parity the writes keep. */
  function readWriteKeyActions(): string[] {
    const { stack } = testStack();
    const table = countersTable(stack, new Key(stack, 'TableKey'));
    table.grantReadWriteData(new Role(stack, 'Reference', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }));
    const template = Template.fromStack(stack);
    return grantedActions(template, 'kms')[logicalId(template, 'AWS::KMS::Key')] ?? [];
  }

  test.each<[string, TableAction[], string[]]>([
    ['only read', [TableAction.GET_ITEM, TableAction.BATCH_GET_ITEM], ['kms:Decrypt', 'kms:DescribeKey']],
    ['write', [TableAction.PUT_ITEM], readWriteKeyActions()],
    ['get the default set, which writes', [...DEFAULT_TABLE_ACTIONS], readWriteKeyActions()],
  ])('actions that %s get the key actions aws-cdk-lib grants for them', (_, actions, keyActions) => {
    const template = synth((table) => ({ COUNTERS_TABLE: { table, actions } }), { key: true });
    expect(grantedActions(template, 'kms')).toEqual({ [logicalId(template, 'AWS::KMS::Key')]: keyActions });
  });

  test('the write parity is decrypt and encrypt', () => {
    expect(readWriteKeyActions()).toEqual(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*']);
  });
});

describe('tables fails if', () => {
  const allowed = Object.values(TableAction).join(', ');
  // Entries that the types refuse, as JavaScript callers (and casts) can still pass them.
  test.each<[string, (table: Table) => unknown, string]>([
    ['actions is empty', (table) => ({ table, actions: [] }), 'tables.COUNTERS_TABLE.actions must list at least one TableAction (given [])'],
    ['actions is missing', (table) => ({ table }), 'tables.COUNTERS_TABLE.actions must list at least one TableAction (given undefined)'],
    ['actions is not a list', (table) => ({ table, actions: 'dynamodb:PutItem' }), 'tables.COUNTERS_TABLE.actions must list at least one TableAction (given "dynamodb:PutItem")'],
    ['an action lacks its service prefix', (table) => ({ table, actions: ['PutItem'] }), `tables.COUNTERS_TABLE.actions must be TableAction values (${allowed}) (given "PutItem")`],
    ['an action is a wildcard', (table) => ({ table, actions: [TableAction.GET_ITEM, 'dynamodb:*'] }), 'must be TableAction values (dynamodb:GetItem, '],
    ['an action is a wildcard (named alone)', (table) => ({ table, actions: [TableAction.GET_ITEM, 'dynamodb:*'] }), '(given "dynamodb:*")'],
    ['an action is not a data-plane action', (table) => ({ table, actions: ['dynamodb:DeleteTable'] }), '(given "dynamodb:DeleteTable")'],
    ['an action is a stream read', (table) => ({ table, actions: ['dynamodb:GetRecords'] }), '(given "dynamodb:GetRecords")'],
    ['an action is not a string', (table) => ({ table, actions: [42] }), '(given 42)'],
    ['the table is missing', () => ({ actions: [TableAction.PUT_ITEM] }), 'tables.COUNTERS_TABLE must be a table or { table, actions } (given {"actions":["dynamodb:PutItem"]})'],
    ['the table is a name', () => ({ table: 'counters', actions: [TableAction.PUT_ITEM] }), 'tables.COUNTERS_TABLE must be a table or { table, actions } (given {"table":"counters",'],
    ['the entry is a name', () => 'counters', 'tables.COUNTERS_TABLE must be a table or { table, actions } (given "counters")'],
    ['the entry is undefined', () => undefined, 'tables.COUNTERS_TABLE must be a table or { table, actions } (given undefined)'],
    ['the entry misspells table', (table) => ({ tabel: table, actions: [TableAction.PUT_ITEM] }), '(given {"tabel":"Test/Counters","actions":["dynamodb:PutItem"]})'],
  ])('%s', (_, entryOf, message) => {
    expect(() => synth((table) => ({ COUNTERS_TABLE: entryOf(table) as TableGrant }))).toThrow(message);
  });

  test('skips an action that is an unresolved token', () => {
    const action = Lazy.string({ produce: () => TableAction.GET_ITEM }) as TableAction;
    expect(() => synth((table) => ({ COUNTERS_TABLE: { table, actions: [action] } }))).not.toThrow();
  });
});
