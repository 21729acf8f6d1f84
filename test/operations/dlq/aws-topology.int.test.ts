/**
 * The DLQs of a deployed stack, from what CloudFormation and the services return: the
 * synthesized example stack's resources with physical ids as CloudFormation names them, each
 * queue's redrive policy as SQS reports it, and no outputs. No AWS call is made.
 */
import { deployedTopology, findDlq } from '../../../operations/dlq';
import { deployed, REGION, ACCOUNT } from './deployed-example';

test('every DLQ of the example stack is found with its role and source, without outputs', () => {
  const stack = deployed();
  const topology = deployedTopology(stack);
  const arnOf = (prefix: string) => topology.queues.find((queue) => queue.name.startsWith(`EffectivelyOnce-${prefix}`))?.arn;
  const bySource = Object.fromEntries(topology.deadLetterQueues.map((dlq) => [dlq.arn, dlq.sources]));
  expect(Object.keys(bySource).sort()).toEqual([arnOf('AccountLedgerDlq'), arnOf('InvoicePaymentsDlq'), arnOf('OrderProjectionDlq'), arnOf('OrderProjectionRebuildDlq'), arnOf('PageViewCounterDlq'), arnOf('ShipmentNotifierDlq'), arnOf('SqlEffectsDlq')].sort());
  // The SQL database's expiry: its schedule's dead-letter queue, which the depth alarm watches too; the schedule is named by its logical id (no ARN without a describe).
  expect(bySource[arnOf('SqlEffectsDlq') ?? '']).toEqual([{ role: 'schedule', arn: expect.stringMatching(/^(arn:aws:scheduler:.*|SqlEffectsExpiry[0-9A-F]{8})$/) }]);
  expect(bySource[arnOf('AccountLedgerDlq') ?? '']).toEqual([{ role: 'redrive', arn: arnOf('AccountLedgerQueue') }]);
  expect(bySource[arnOf('InvoicePaymentsDlq') ?? '']).toEqual([{ role: 'redrive', arn: arnOf('InvoicePaymentsQueue') }]);
  expect(bySource[arnOf('PageViewCounterDlq') ?? '']).toEqual([{ role: 'redrive', arn: arnOf('PageViewCounterQueue') }]);
  expect(bySource[arnOf('OrderProjectionDlq') ?? '']).toEqual([{ role: 'on-failure', arn: topology.streams[0]?.arn }]);
  // The rebuilt generation reads the same stream, with its own DLQ (its mapping is off: nothing comes there until it is live).
  expect(bySource[arnOf('OrderProjectionRebuildDlq') ?? '']).toEqual([{ role: 'on-failure', arn: topology.streams[0]?.arn }]);
  expect(bySource[arnOf('ShipmentNotifierDlq') ?? '']).toEqual([{ role: 'on-failure', arn: topology.tables.find((table) => table.streamArn)?.streamArn }]);
  expect(topology.region).toBe(REGION);
  expect(topology.streams[0]).toMatchObject({ arn: expect.stringMatching(new RegExp(`^arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/EffectivelyOnce-OrderProjectionStream`)), retentionHours: 24 });
  expect(findDlq(topology, 'PageViewCounterDlq').url).toMatch(/^https:\/\/sqs\.eu-west-1\.amazonaws\.com\/123456789012\/EffectivelyOnce-PageViewCounterDlq/);
  expect(findDlq(topology, 'shipmentnotifier').sources[0]?.role).toBe('on-failure');
});

test('in aws-cn the same stack resolves the same way, with its queue URLs on amazonaws.com.cn', () => {
  const topology = deployedTopology(deployed('aws-cn', 'amazonaws.com.cn'));
  expect(topology.deadLetterQueues).toHaveLength(7);
  expect(topology.deadLetterQueues.every((dlq) => dlq.arn.startsWith('arn:aws-cn:sqs:') && dlq.url.includes('.amazonaws.com.cn/'))).toBe(true);
});

test('an output that names a DLQ\'s URL finds it, when the stack has outputs', () => {
  const stack = deployed();
  const dlqUrl = stack.queues.find((queue) => queue.logicalId.startsWith('PageViewCounterDlq'))?.url ?? '';
  expect(findDlq(deployedTopology({ ...stack, outputs: { PageViewCounterDlqUrl: dlqUrl } }), 'PageViewCounterDlqUrl').url).toBe(dlqUrl);
});

test('a queue that is no DLQ of the stack is refused with the list of those that are', () => {
  expect(() => findDlq(deployedTopology(deployed()), 'nope')).toThrow(/not a dead-letter queue of the stack.*PageViewCounterDlq/);
});

test('each consumer\'s dedup window is found by the source its mapping reads, from the functions\' DEDUP_TTL_SECONDS, with the dedup table their IDEMPOTENCY_TABLE (or SQL_DEDUP_TABLE) names', () => {
  const topology = deployedTopology(deployed());
  const queueArn = (prefix: string) => topology.queues.find((queue) => queue.name.startsWith(`EffectivelyOnce-${prefix}`))?.arn;
  const dedupTable = topology.tables.find((table) => table.name.startsWith('EffectivelyOnce-IdempotencyTable'))?.name;
  const days = (n: number) => n * 86_400;
  expect(dedupTable).toBeDefined();
  expect([...topology.consumerWindows].sort((a, b) => a.consumer.localeCompare(b.consumer))).toEqual([
    { consumer: 'account-ledger', sourceArn: queueArn('AccountLedgerQueue'), dedupTtlSeconds: days(4 + 14 + 1 + 4), dedupTable },
    // Its dedup rows are in PostgreSQL (SQL_DEDUP_TABLE), read through the Data API; the new cluster's secret
    // (`Fn::GetAtt` of RDS's own) does not resolve from the template, so inspect reads it from the function.
    {
      consumer: 'invoice-payments',
      sourceArn: queueArn('InvoicePaymentsQueue'),
      dedupTtlSeconds: days(4 + 14 + 1 + 4),
      sqlDedup: { functionName: expect.stringMatching(/^EffectivelyOnce-InvoicePaymentsFunction/), table: 'eo_dedup', database: 'effects', resourceArn: expect.stringMatching(/^arn:aws:rds:eu-west-1:123456789012:cluster:EffectivelyOnce-SqlEffectsCluster/) },
    },
    // The projection is idempotent by versions: it keeps no dedup records.
    { consumer: 'order-projection', sourceArn: topology.streams[0]?.arn, dedupTtlSeconds: days(1 + 14 + 1 + 1) },
    // Its generation 2, named as its DLQ messages and dedup keys name it.
    { consumer: 'order-projection@g2', sourceArn: topology.streams[0]?.arn, dedupTtlSeconds: days(1 + 14 + 1 + 1) },
    { consumer: 'page-view-counter', sourceArn: queueArn('PageViewCounterQueue'), dedupTtlSeconds: days(4 + 14 + 1 + 4), dedupTable },
    { consumer: 'shipment-notifier', sourceArn: topology.tables.find((table) => table.streamArn)?.streamArn, dedupTtlSeconds: days(1 + 14 + 1 + 1), dedupTable },
  ]);
});

test('a consumer whose construct declares an envelope has it in its window, for inspect to read a bare message\'s event id as it does', () => {
  const stack = deployed();
  const template = structuredClone(stack.template);
  const counter = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::Lambda::Function' && JSON.stringify(resource.Properties).includes('"CONSUMER_NAME":"page-view-counter"'));
  const variables = (counter?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
  variables.EVENT_ENVELOPE = 'sns';
  const windows = deployedTopology({ ...stack, template }).consumerWindows;
  expect(windows.find((window) => window.consumer === 'page-view-counter')?.envelope).toEqual({ format: 'sns' });
  expect(windows.find((window) => window.consumer === 'account-ledger')?.envelope).toBeUndefined();
});
