import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventPipelineStack } from '../../example';
import { DATA_API_CONSUMER_ACTIONS, QueueConsumer } from '../../lib';
import { isAwsCustomResourceProvider } from '../../aws/cloudformation/template';
import { FIXTURE_HANDLER, grantedActions, logicalId, testApp } from '../lib/support';
import { heldMessagesAlarm, heldMessagesQueue } from '../helpers/alarms';

/** A CloudFormation resource as the template holds it. */
interface Resource {
  readonly Type: string;
  // Template JSON is untyped; the assertions below say what shape they expect.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly Properties: Record<string, any>;
}

// The examples alone: consumers that `eo new consumer` added to example/consumers/ have their own tests.
const stack = new EventPipelineStack(testApp(), 'EffectivelyOnce', { alarmEmail: 'oncall@example.com', consumers: [] });
const template = Template.fromStack(stack);
const resources = template.toJSON().Resources as Record<string, Resource>;
const alarmTopicId = logicalId(template, 'AWS::SNS::Topic', 'AlarmsTopic');

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The logical ID in `{ "Fn::GetAtt": [id, "Arn"] }`, or undefined for any other shape. */
function arnOf(value: unknown): string | undefined {
  const getAtt = (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
  return getAtt?.[1] === 'Arn' ? getAtt[0] : undefined;
}

describe('EventPipelineStack', () => {
  test('holds five consumers, the order projection\'s rebuilt generation, the SQL database, and what they read, write and alarm', () => {
    // Six consumers' functions, and the provider of the SQL database's migration (AwsCustomResource).
    template.resourceCountIs('AWS::Lambda::Function', 7);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 6);
    // Each consumer's DLQ, the four queues' sources, and the SQL database's expiry DLQ.
    template.resourceCountIs('AWS::SQS::Queue', 10);
    // The rebuilt generation reads the live one's stream.
    template.resourceCountIs('AWS::Kinesis::Stream', 1);
    template.resourceCountIs('AWS::DynamoDB::Table', 5);
    template.resourceCountIs('AWS::SNS::Topic', 3);
    // Three topics' and the SQL database's.
    template.resourceCountIs('AWS::KMS::Key', 4);
    template.resourceCountIs('AWS::RDS::DBCluster', 1);
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    // The dedup table and its index, then the invoice payments' two tables.
    template.resourceCountIs('Custom::AWS', 4);
    // A depth alarm per DLQ (the six consumers' and the expiry's), an iterator age alarm per stream
    // consumer, five more per consumer (lib/consumer-alarms.ts).
    template.resourceCountIs('AWS::CloudWatch::Alarm', 7 + 3 + 5 * 6);
    // One dashboard over all six (lib/pipeline-dashboard.ts).
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    // One more than before the fan-out: the page views topic's subscription of the counter queue.
    template.resourceCountIs('AWS::SNS::Subscription', 2);
  });

  test('the invoice payments reach the SQL database through the Data API, with its calls on that cluster and its secret, and nothing of DynamoDB', () => {
    const cluster = logicalId(template, 'AWS::RDS::DBCluster');
    const granted = grantedActions(template, 'rds-data', 'InvoicePaymentsRole');
    expect(Object.values(granted)).toEqual([[...DATA_API_CONSUMER_ACTIONS].sort()]);
    expect(JSON.stringify(Object.keys(granted))).toContain(cluster);
    expect(Object.values(grantedActions(template, 'secretsmanager', 'InvoicePaymentsRole'))).toEqual([['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']]);
    expect(grantedActions(template, 'dynamodb', 'InvoicePaymentsRole')).toEqual({});
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CONSUMER_NAME: 'invoice-payments', DATA_API_DATABASE: 'effects', SQL_DEDUP_TABLE: 'eo_dedup', SQL_EFFECT_TABLES: 'payments,invoices' }) },
    });
  });

  test('the account ledger reads a FIFO queue whose DLQ is FIFO too', () => {
    const queue = logicalId(template, 'AWS::SQS::Queue', 'AccountLedgerQueue');
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'AccountLedgerDlq');
    for (const id of [queue, dlq]) expect(template.toJSON().Resources[id].Properties).toMatchObject({ FifoQueue: true, QueueName: expect.stringMatching(/\.fifo$/) });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
  });

  test('page views fan out from their topic to the counter queue with raw delivery, which only that topic may send to', () => {
    const queue = logicalId(template, 'AWS::SQS::Queue', 'PageViewCounterQueue');
    const topic = logicalId(template, 'AWS::SNS::Topic', 'PageViewsTopic');
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'sqs', TopicArn: { Ref: topic }, Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] }, RawMessageDelivery: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'sqs:SendMessage', Principal: { Service: 'sns.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topic } } } })]) },
    });
  });

  test('outputs every queue URL, the stream, the tables, the topics and the dashboard, without exports', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Export?: unknown }>;
    expect(Object.keys(outputs).sort()).toEqual([
      'AccountLedgerDlqUrl',
      'AlarmTopicArn',
      'CountersTableName',
      'DashboardName',
      'IdempotencyTableName',
      'InvoicePaymentsDlqUrl',
      'LedgerQueueUrl',
      'LedgerTableName',
      'NotificationsTopicArn',
      'OrderProjectionDlqUrl',
      'OrderProjectionRebuildDlqUrl',
      'OrdersStreamName',
      'OrdersTableName',
      'PageViewCounterDlqUrl',
      'PageViewsQueueUrl',
      'PageViewsTopicArn',
      'PaymentsQueueUrl',
      'RebuiltOrdersTableName',
      'ShipmentNotifierDlqUrl',
      'SqlDatabaseName',
    ]);
    expect(Object.values(outputs).filter((output) => output.Export !== undefined)).toEqual([]);
  });

  test.each([
    ['PageViewsQueueUrl', 'AWS::SQS::Queue', 'PageViewCounterQueue'],
    ['PageViewCounterDlqUrl', 'AWS::SQS::Queue', 'PageViewCounterDlq'],
    ['OrderProjectionDlqUrl', 'AWS::SQS::Queue', 'OrderProjectionDlq'],
    ['ShipmentNotifierDlqUrl', 'AWS::SQS::Queue', 'ShipmentNotifierDlq'],
    ['OrdersStreamName', 'AWS::Kinesis::Stream', 'OrderProjectionStream'],
    ['IdempotencyTableName', 'AWS::DynamoDB::Table', 'IdempotencyTable'],
    ['CountersTableName', 'AWS::DynamoDB::Table', 'CountersTable'],
    ['OrdersTableName', 'AWS::DynamoDB::Table', 'OrdersTable'],
    ['NotificationsTopicArn', 'AWS::SNS::Topic', 'NotificationsTopic'],
    ['PageViewsTopicArn', 'AWS::SNS::Topic', 'PageViewsTopic'],
    ['AlarmTopicArn', 'AWS::SNS::Topic', 'AlarmsTopic'],
    ['LedgerQueueUrl', 'AWS::SQS::Queue', 'AccountLedgerQueue'],
    ['AccountLedgerDlqUrl', 'AWS::SQS::Queue', 'AccountLedgerDlq'],
    ['LedgerTableName', 'AWS::DynamoDB::Table', 'LedgerTable'],
    ['PaymentsQueueUrl', 'AWS::SQS::Queue', 'InvoicePaymentsQueue'],
    ['InvoicePaymentsDlqUrl', 'AWS::SQS::Queue', 'InvoicePaymentsDlq'],
  ])('output %s refers to %s %s', (output, type, prefix) => {
    template.hasOutput(output, { Value: { Ref: logicalId(template, type, prefix) } });
  });

  test.each([
    [
      'PageViewCounter',
      ['ACCEPT_SCHEMA_V2', 'COUNTERS_TABLE', 'COUNTER_SHARDS', 'IDEMPOTENCY_TABLE', 'MAX_ATTEMPTS', 'MAX_RECEIVE_COUNT', 'SOURCE_QUEUE_URL'],
    ],
    ['OrderProjection', ['ORDERS_TABLE']],
    ['ShipmentNotifier', ['IDEMPOTENCY_TABLE', 'NOTIFICATIONS_TOPIC_ARN']],
    ['AccountLedger', ['IDEMPOTENCY_TABLE', 'LEDGER_TABLE', 'MAX_ATTEMPTS', 'MAX_RECEIVE_COUNT', 'SOURCE_QUEUE_URL']],
    ['InvoicePayments', ['DATA_API_DATABASE', 'DATA_API_RESOURCE_ARN', 'DATA_API_SECRET_ARN', 'MAX_ATTEMPTS', 'MAX_RECEIVE_COUNT', 'SOURCE_QUEUE_URL', 'SQL_DEDUP_TABLE', 'SQL_EFFECT_TABLES']],
  ])('%s gets the common environment plus %j', (prefix, specific) => {
    const [, fn] = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(prefix)) ?? [];
    const common = [
      'CONSUMER_NAME',
      'DEDUP_TTL_SECONDS',
      'DLQ_URL',
      'NODE_OPTIONS',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
    ];
    expect(Object.keys(fn?.Properties.Environment.Variables ?? {}).sort()).toEqual([...common, ...specific].sort());
  });

  test('the page view counter says no to schema v2 for now', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CONSUMER_NAME: 'page-view-counter', ACCEPT_SCHEMA_V2: 'false', COUNTER_SHARDS: '256' }) },
    });
  });

  test('the orders table streams both images to the shipment notifier', () => {
    const ordersId = logicalId(template, 'AWS::DynamoDB::Table', 'OrdersTable');
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [ordersId, 'StreamArn'] },
      FunctionName: { Ref: logicalId(template, 'AWS::Lambda::Function', 'ShipmentNotifier') },
    });
  });

  test('the shipment notifier may publish to the notifications topic, and only it may', () => {
    const topicId = logicalId(template, 'AWS::SNS::Topic', 'NotificationsTopic');
    const publishers = ofType('AWS::IAM::Policy').filter(([, policy]) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('sns:Publish'),
    );
    expect(publishers.map(([id]) => id)).toEqual([expect.stringMatching(/^ShipmentNotifierRole/)]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: 'sns:Publish', Resource: { Ref: topicId } })]),
      },
    });
  });

  describe('each consumer may call exactly what its runtime calls on DynamoDB', () => {
    const table = (prefix: string): string => logicalId(template, 'AWS::DynamoDB::Table', prefix);
    test.each<[string, Record<string, string[]>]>([
      [
        // Batch commit: TransactWriteItems (dedup Put, counter Update), BatchGetItem of redeliveries' records.
        'PageViewCounter',
        {
          [table('CountersTable')]: ['dynamodb:UpdateItem'],
          [table('IdempotencyTable')]: ['dynamodb:BatchGetItem', 'dynamodb:PutItem'],
        },
      ],
      // putIfNewer.
      ['OrderProjection', { [table('OrdersTable')]: ['dynamodb:PutItem'] }],
      [
        // Powertools idempotency, and the event source's read of the orders table's stream.
        'ShipmentNotifier',
        {
          [table('IdempotencyTable')]: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          [`${table('OrdersTable')}.StreamArn`]: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
          '*': ['dynamodb:ListStreams'],
        },
      ],
    ])('%s', (prefix, expected) => {
      expect(grantedActions(template, 'dynamodb', `${prefix}Role`)).toEqual(expected);
    });

    test('no policy of the stack names a scan, a query or a batch write, nor a DynamoDB wildcard action', () => {
      const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
      expect(policies.match(/dynamodb:(Scan|Query|BatchWriteItem)\b/g)).toBeNull();
      expect(Object.values(grantedActions(template, 'dynamodb')).flat().filter((action) => action.includes('*'))).toEqual([]);
    });
  });

  test('every queue is encrypted at rest and refuses plain HTTP', () => {
    for (const [id, queue] of ofType('AWS::SQS::Queue')) {
      expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId).toBeTruthy();
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  test('every table is on demand, KMS-encrypted, recoverable and retained', () => {
    const tables = template.findResources('AWS::DynamoDB::Table');
    for (const table of Object.values(tables)) {
      expect(table).toMatchObject({
        DeletionPolicy: 'Retain',
        Properties: {
          BillingMode: 'PAY_PER_REQUEST',
          SSESpecification: { SSEEnabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        },
      });
    }
  });

  test('the stream and both topics are encrypted; the topics with rotating customer-managed keys', () => {
    template.hasResourceProperties('AWS::Kinesis::Stream', { StreamEncryption: { EncryptionType: 'KMS' } });
    for (const [, topic] of ofType('AWS::SNS::Topic')) {
      const keyId = arnOf(topic.Properties.KmsMasterKeyId);
      expect(resources[keyId ?? '']).toMatchObject({ Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true } });
    }
  });

  test('every mapping reports partial batch failures; every stream mapping gives up safely', () => {
    for (const [, mapping] of ofType('AWS::Lambda::EventSourceMapping')) {
      expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      if (mapping.Properties.StartingPosition === undefined) continue; // SQS
      expect(mapping.Properties).toMatchObject({
        StartingPosition: 'TRIM_HORIZON',
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: expect.any(Number),
        MaximumRecordAgeInSeconds: expect.any(Number),
        DestinationConfig: { OnFailure: { Destination: expect.anything() } },
      });
      expect(mapping.Properties.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
      expect(mapping.Properties.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
    }
  });

  test('every stream consumer alarms on its iterator age', () => {
    const streamConsumers = ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, mapping]) => mapping.Properties.StartingPosition !== undefined)
      .map(([, mapping]) => mapping.Properties.FunctionName);
    expect(streamConsumers).toHaveLength(3);
    for (const functionName of streamConsumers) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: functionName }],
        AlarmActions: [{ Ref: alarmTopicId }],
        OKActions: [{ Ref: alarmTopicId }],
      });
    }
  });

  test('every DLQ and on-failure queue has a depth alarm that notifies on ALARM and OK', () => {
    const redriveTargets = ofType('AWS::SQS::Queue').map(([, q]) => q.Properties.RedrivePolicy?.deadLetterTargetArn);
    const onFailure = ofType('AWS::Lambda::EventSourceMapping').map(
      ([, m]) => m.Properties.DestinationConfig?.OnFailure?.Destination,
    );
    const dlqs = new Set(
      [...redriveTargets, ...onFailure].filter((arn) => arn !== undefined).map((arn) => arnOf(arn) ?? String(arn)),
    );

    expect(dlqs.size).toBe(6);
    for (const dlq of dlqs) {
      expect(resources[dlq]?.Type).toBe('AWS::SQS::Queue'); // a queue of this stack, not a foreign ARN
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...heldMessagesAlarm({ 'Fn::GetAtt': [dlq, 'QueueName'] }),
        AlarmActions: [{ Ref: alarmTopicId }],
        OKActions: [{ Ref: alarmTopicId }],
      });
    }
  });

  test('every consumer function dead-letters to a queue that is alarmed as a DLQ, and the SQL expiry\'s DLQ is alarmed too', () => {
    const depthAlarmed = ofType('AWS::CloudWatch::Alarm')
      .map(([, alarm]) => heldMessagesQueue(alarm.Properties) as { 'Fn::GetAtt': [string, string] } | undefined)
      .flatMap((queueName) => (queueName ? [queueName['Fn::GetAtt'][0]] : []));
    // The migration's provider runs at deploy for CloudFormation, which reports its failures itself.
    const consumers = ofType('AWS::Lambda::Function').filter(([id]) => !isAwsCustomResourceProvider(id));
    const dlqUrls = consumers.map(([, fn]) => fn.Properties.Environment.Variables.DLQ_URL.Ref);
    expect([...dlqUrls, logicalId(template, 'AWS::SQS::Queue', 'SqlEffectsDlq')].sort()).toEqual(depthAlarmed.sort());
  });
});

describe('EventPipelineStack consumers', () => {
  const withExtra = new EventPipelineStack(testApp(), 'EffectivelyOnce', {
    alarmEmail: 'oncall@example.com',
    consumers: [
      (pipeline) =>
        new QueueConsumer(pipeline, 'AuditTrail', {
          consumerName: 'audit-trail',
          entry: FIXTURE_HANDLER,
          alarmTopic: pipeline.alarmTopic.topic,
          tables: { IDEMPOTENCY_TABLE: pipeline.idempotencyTable.table },
        }),
    ],
  });
  const extended = Template.fromStack(withExtra).toJSON() as { Resources: Record<string, Resource> };

  test('adds each one after the examples, with the shared alarm topic and idempotency table', () => {
    const added = Object.keys(extended.Resources).filter((id) => !(id in resources));
    expect(added.every((id) => id.startsWith('AuditTrail'))).toBe(true);
    const types = added.map((id) => extended.Resources[id]?.Type);
    expect(types.filter((type) => type === 'AWS::Lambda::EventSourceMapping')).toHaveLength(1);
    // Its DLQ's depth alarm and its five own (lib/consumer-alarms.ts).
    expect(types.filter((type) => type === 'AWS::CloudWatch::Alarm')).toHaveLength(6);
    const [, alarm] = Object.entries(extended.Resources).find(([id, r]) => id.startsWith('AuditTrail') && r.Type === 'AWS::CloudWatch::Alarm') ?? [];
    expect(alarm?.Properties.AlarmActions).toEqual([{ Ref: alarmTopicId }]);
  });

  test('leaves the examples exactly as they are, but for the dashboard, which draws the added one after them', () => {
    const dashboard = logicalId(template, 'AWS::CloudWatch::Dashboard');
    for (const [id, resource] of Object.entries(resources)) if (id !== dashboard) expect(extended.Resources[id]).toEqual(resource);
    const parts = (body: unknown): unknown[] => (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const examples = parts(resources[dashboard]?.Properties.DashboardBody);
    const withAdded = parts(extended.Resources[dashboard]?.Properties.DashboardBody);
    expect(withAdded.slice(0, examples.length - 1)).toEqual(examples.slice(0, -1));
    expect(JSON.stringify(withAdded.slice(examples.length - 1))).toContain('audit-trail: deliveries');
  });
});
