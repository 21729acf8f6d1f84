/**
 * Reading consumer settings from the environment: a missing or malformed value is a
 * ConfigurationError that names the variable and the value given.
 */
import { booleanEnv, consumerEnv, positiveIntEnv, requireEnv } from '../../../../lambdas/runtime/consumer/config';
import { ConfigurationError } from '../../../../lambdas/runtime/core/errors';

describe('requireEnv', () => {
  test('returns the value', () => {
    expect(requireEnv('TABLE', { TABLE: 'counters' })).toBe('counters');
  });

  test.each([
    ['unset', {}],
    ['empty', { TABLE: '' }],
  ])('fails when %s, naming the variable', (_label, env) => {
    expect(() => requireEnv('TABLE', env)).toThrow(ConfigurationError);
    expect(() => requireEnv('TABLE', env)).toThrow('TABLE');
  });
});

describe('positiveIntEnv', () => {
  test.each([
    [undefined, undefined],
    ['', undefined],
    ['1', 1],
    ['5', 5],
    ['86400', 86_400],
  ])('%p -> %p', (value, expected) => {
    expect(positiveIntEnv('N', { N: value })).toBe(expected);
  });

  test.each(['0', '-1', '1.5', 'five', 'NaN', 'Infinity'])('rejects %p with a message quoting it', (value) => {
    expect(() => positiveIntEnv('MAX_ATTEMPTS', { MAX_ATTEMPTS: value })).toThrow(ConfigurationError);
    expect(() => positiveIntEnv('MAX_ATTEMPTS', { MAX_ATTEMPTS: value })).toThrow(`MAX_ATTEMPTS must be a positive integer (given "${value}")`);
  });
});

describe('booleanEnv', () => {
  test.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
  ])('%p -> %p', (value, expected) => {
    expect(booleanEnv('FLAG', { FLAG: value })).toBe(expected);
  });

  test.each(['TRUE', 'yes', '1', 'on'])('rejects %p rather than guessing', (value) => {
    expect(() => booleanEnv('ACCEPT_SCHEMA_V2', { ACCEPT_SCHEMA_V2: value })).toThrow(`ACCEPT_SCHEMA_V2 must be "true" or "false" (given "${value}")`);
  });
});

describe('consumerEnv', () => {
  test('reads every common setting', () => {
    expect(consumerEnv('default-name', { CONSUMER_NAME: 'c', CONSUMER_GENERATION: '3', DLQ_URL: 'dlq', MAX_ATTEMPTS: '4', DEDUP_TTL_SECONDS: '60', SOURCE_QUEUE_URL: 'q' })).toEqual({
      consumerName: 'c',
      generation: 3,
      dlqUrl: 'dlq',
      maxAttempts: 4,
      dedupTtlSeconds: 60,
      sourceQueueUrl: 'q',
    });
  });

  test('falls back to the default name and leaves the rest unset', () => {
    expect(consumerEnv('page-view-counter', { CONSUMER_NAME: '', DLQ_URL: '' })).toEqual({
      consumerName: 'page-view-counter',
      generation: 1,
      dlqUrl: undefined,
      maxAttempts: undefined,
      dedupTtlSeconds: undefined,
      sourceQueueUrl: undefined,
    });
  });

  test('a malformed number fails the whole read', () => {
    expect(() => consumerEnv('c', { DEDUP_TTL_SECONDS: '30d' })).toThrow('DEDUP_TTL_SECONDS');
  });
});

describe('consumerEnv: the generation', () => {
  test('is 1 when CONSUMER_GENERATION is unset, else the whole number it holds', () => {
    expect(consumerEnv('counter', {}).generation).toBe(1);
    expect(consumerEnv('counter', { CONSUMER_GENERATION: '2' }).generation).toBe(2);
  });

  test.each(['0', 'two', '1.5'])('refuses CONSUMER_GENERATION=%p, naming it', (value) => {
    expect(() => consumerEnv('counter', { CONSUMER_GENERATION: value })).toThrow(ConfigurationError);
    expect(() => consumerEnv('counter', { CONSUMER_GENERATION: value })).toThrow(`CONSUMER_GENERATION must be a positive integer (given "${value}")`);
  });
});
