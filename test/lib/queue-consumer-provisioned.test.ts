/**
 * QueueConsumer's `provisionedPollers`: Lambda's provisioned mode for the queue's mapping
 * (`ProvisionedPollerConfig`), checked at synth time against AWS's SQS ranges (minimum 2..200,
 * maximum 2..2000, minimum not above maximum) and refused beside `maxConcurrency`, which it
 * replaces: with it the mapping has no `ScalingConfig`.
 */
import { Lazy } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { synthQueueConsumer } from './support';

/** The properties of the consumer's only mapping. */
function mappingProps(template: Template): Record<string, unknown> {
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappings).toHaveLength(1);
  return mappings[0].Properties as Record<string, unknown>;
}

describe('QueueConsumer provisionedPollers', () => {
  test('absent by default: the mapping scales by its maximum concurrency', () => {
    const props = mappingProps(synthQueueConsumer());
    expect(props).not.toHaveProperty('ProvisionedPollerConfig');
    expect(props.ScalingConfig).toEqual({ MaximumConcurrency: 16 });
  });

  test('emits ProvisionedPollerConfig and drops the default maximum concurrency, which Lambda refuses beside it', () => {
    const props = mappingProps(synthQueueConsumer({ provisionedPollers: { minimum: 2, maximum: 20 } }));
    expect(props.ProvisionedPollerConfig).toEqual({ MinimumPollers: 2, MaximumPollers: 20 });
    expect(props).not.toHaveProperty('ScalingConfig');
    expect(props.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  test.each<[number, number]>([
    [2, 2],
    [200, 200],
    [200, 2000],
    [2, 2000],
  ])('accepts minimum %p, maximum %p', (minimum, maximum) => {
    expect(mappingProps(synthQueueConsumer({ provisionedPollers: { minimum, maximum } })).ProvisionedPollerConfig).toEqual({ MinimumPollers: minimum, MaximumPollers: maximum });
  });

  test.each<[number, number, string]>([
    [1, 10, 'provisionedPollers.minimum must be 2..200 (given 1)'],
    [201, 300, 'provisionedPollers.minimum must be 2..200 (given 201)'],
    [2.5, 10, 'provisionedPollers.minimum must be 2..200 (given 2.5)'],
    [2, 1, 'provisionedPollers.maximum must be 2..2000 (given 1)'],
    [2, 2001, 'provisionedPollers.maximum must be 2..2000 (given 2001)'],
    [2, Number.NaN, 'provisionedPollers.maximum must be 2..2000 (given NaN)'],
    [50, 10, 'provisionedPollers.minimum must not exceed provisionedPollers.maximum (given minimum 50, maximum 10)'],
  ])('fails if minimum is %p and maximum %p', (minimum, maximum, message) => {
    expect(() => synthQueueConsumer({ provisionedPollers: { minimum, maximum } })).toThrow(message);
  });

  test('fails beside an explicit maxConcurrency, naming both', () => {
    expect(() => synthQueueConsumer({ maxConcurrency: 16, provisionedPollers: { minimum: 2, maximum: 20 } })).toThrow(
      /provisionedPollers and maxConcurrency are exclusive \(given maxConcurrency 16\)/,
    );
  });

  test('skips values that are unresolved tokens, and writes the tokens to the template', () => {
    const maximum = Lazy.number({ produce: () => 1 });
    expect(mappingProps(synthQueueConsumer({ provisionedPollers: { minimum: 2, maximum } })).ProvisionedPollerConfig).toEqual({ MinimumPollers: 2, MaximumPollers: 1 });
  });
});
