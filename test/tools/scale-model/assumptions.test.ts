/** The model's AWS figures agree with the ones the runtime and the constructs use, and say where they come from. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DYNAMODB_LIMITS, LAMBDA_LIMITS, SQS_LIMITS } from '../../../aws/limits';
import { PAGE_VIEW_COUNTER_SHARDS } from '../../../example/counter-shards';
import { CONSUMER_DEFAULTS, QUEUE_CONSUMER_DEFAULTS } from '../../../lib/defaults';
import { ALL_ASSUMPTIONS, CONFIRMATION, DEPLOYED, DYNAMODB, LAMBDA, STREAMS } from '../../../tools/scale-model';

const ROOT = path.resolve(__dirname, '..', '..', '..');

test('the limits the runtime already knows are the same numbers', () => {
  expect(DYNAMODB.itemWriteUnits.value).toBe(DYNAMODB_LIMITS.maxItemWriteUnitsPerSecond);
  expect(DYNAMODB.transactionActions.value).toBe(DYNAMODB_LIMITS.maxTransactionActions);
  expect(LAMBDA.sqsMaximumConcurrency.value).toBe(LAMBDA_LIMITS.maxSqsMaximumConcurrency);
  expect(STREAMS.sqsBatchEntries.value).toBe(SQS_LIMITS.maxBatchEntries);
});

test('every figure has a source unless it is an assumption of the model', () => {
  const entries = ALL_ASSUMPTIONS.flatMap(([, group]) => Object.values(group));
  for (const entry of entries) {
    if (entry.confirmed !== CONFIRMATION.none) expect(entry.sources.length).toBeGreaterThan(0);
    for (const url of entry.sources) expect(url).toMatch(/^https:\/\//);
  }
});

test('the deployed settings are read from the code that deploys them', () => {
  expect(DEPLOYED).toMatchObject({ memoryMb: CONSUMER_DEFAULTS.memorySize, queueMaxConcurrency: QUEUE_CONSUMER_DEFAULTS.maxConcurrency, counterShards: PAGE_VIEW_COUNTER_SHARDS });
  // The price the model uses is arm64's: the consumer functions are deployed on it.
  expect(readFileSync(path.join(ROOT, 'lib', 'consumer-function.ts'), 'utf8')).toContain('architecture: Architecture.ARM_64');
});
