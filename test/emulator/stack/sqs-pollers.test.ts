/**
 * Local mode reads an SQS mapping's `ScalingConfig.MaximumConcurrency`, or in provisioned mode its
 * `ProvisionedPollerConfig.MaximumPollers`, from the template: its pollers (one batch in flight
 * each) never outnumber the invocations AWS would run at once.
 */
import { SQS_MAPPING_DEFAULTS } from '../../../emulator/event-sources';
import { sqsPollerCount } from '../../../emulator/stack/mappings';
import { synthQueueConsumer } from '../../lib/support';

const scaled = (maximum: unknown) => ({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: maximum } });

describe('sqsPollerCount', () => {
  test('uses the local default when the mapping sets no maximum', () => {
    expect(sqsPollerCount({ BatchSize: 10 })).toBe(SQS_MAPPING_DEFAULTS.concurrency);
    expect(sqsPollerCount({ BatchSize: 10 }, 7)).toBe(7);
  });

  test.each<[string, number | undefined, unknown, number]>([
    ['a maximum above the default keeps the default', undefined, 16, 2],
    ['a maximum of 2 with 3 pollers asked for', 3, 2, 2],
    ['a maximum below the pollers asked for', 20, 16, 16],
    ['a maximum above the pollers asked for', 8, 16, 8],
    ['a maximum written as a numeric string', 20, '4', 4],
  ])('%s', (_, requested, maximum, pollers) => {
    expect(sqsPollerCount(scaled(maximum), requested)).toBe(pollers);
  });

  test('ignores a maximum it cannot resolve (a parameter reference)', () => {
    expect(sqsPollerCount(scaled({ Ref: 'Concurrency' }), 5)).toBe(5);
    expect(sqsPollerCount({ ScalingConfig: null }, 5)).toBe(5);
  });

  test('reads the maximum a QueueConsumer writes to its template', () => {
    const template = synthQueueConsumer({ maxConcurrency: 3 });
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(sqsPollerCount(mapping.Properties, 10)).toBe(3);
  });
});

describe('sqsPollerCount in provisioned mode', () => {
  const provisioned = (maximumPollers: unknown) => ({ BatchSize: 10, ProvisionedPollerConfig: { MinimumPollers: 2, MaximumPollers: maximumPollers } });

  test('caps the pollers at 10 invocations per maximum poller, which the local default never reaches', () => {
    expect(sqsPollerCount(provisioned(2))).toBe(SQS_MAPPING_DEFAULTS.concurrency);
    expect(sqsPollerCount(provisioned(2), 25)).toBe(20);
    expect(sqsPollerCount(provisioned(3), 25)).toBe(25);
  });

  test('ignores maximum pollers it cannot resolve', () => {
    expect(sqsPollerCount(provisioned({ Ref: 'Pollers' }), 25)).toBe(25);
  });

  test('reads the pollers a QueueConsumer writes to its template', () => {
    const template = synthQueueConsumer({ provisionedPollers: { minimum: 2, maximum: 2 } });
    const [mapping] = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
    expect(sqsPollerCount(mapping.Properties, 30)).toBe(20);
  });
});
