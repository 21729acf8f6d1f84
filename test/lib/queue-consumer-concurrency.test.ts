/**
 * QueueConsumer's `maxConcurrency`: the mapping's `ScalingConfig.MaximumConcurrency`, 16 unless
 * given, refused outside Lambda's 2..1000 at synth time.
 */
import { Lazy } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { QUEUE_CONSUMER_DEFAULTS } from '../../lib/defaults';
import { synthQueueConsumer } from './support';

/** The `ScalingConfig` of the consumer's only mapping. */
function scalingConfig(template: Template): unknown {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappings).toHaveLength(1);
  return mappings[0].Properties.ScalingConfig;
}

describe('QueueConsumer maxConcurrency', () => {
  test('defaults to 16 concurrent invocations on the mapping', () => {
    expect(QUEUE_CONSUMER_DEFAULTS.maxConcurrency).toBe(16);
    expect(scalingConfig(synthQueueConsumer())).toEqual({ MaximumConcurrency: 16 });
  });

  test.each([2, 50, 1000])('passes %p through to the mapping', (maxConcurrency) => {
    expect(scalingConfig(synthQueueConsumer({ maxConcurrency }))).toEqual({ MaximumConcurrency: maxConcurrency });
  });

  test.each<[string, number]>([
    ['1', 1],
    ['0', 0],
    ['1001', 1001],
    ['2.5', 2.5],
    ['NaN', Number.NaN],
  ])('fails if it is %s', (given, maxConcurrency) => {
    expect(() => synthQueueConsumer({ maxConcurrency })).toThrow(`maxConcurrency must be 2..1000 (given ${given})`);
  });

  test('skips a value that is an unresolved token, and writes the token to the template', () => {
    // 1 would be refused; hidden in a token, only CloudFormation sees it.
    const maxConcurrency = Lazy.number({ produce: () => 1 });
    const template = synthQueueConsumer({ maxConcurrency });
    expect(scalingConfig(template)).toEqual({ MaximumConcurrency: 1 });
  });
});
