/** The cost per million records is the prices of tools/scale-model times what the bench metered, service by service. */
import { costPerMillion } from '../../../tools/bench/cost';
import { PRICES } from '../../../tools/scale-model/assumptions';

const use = { writeUnitsPerEvent: 3, readUnitsPerEvent: 0.5, lambdaMsPerEvent: 2, invocationsPerEvent: 0.01, redeliveriesPerEvent: 0 };

test('DynamoDB: write and read units at their on-demand prices', () => {
  expect(costPerMillion(use).dynamodb).toBeCloseTo(1e6 * (3 * PRICES.dynamodbWriteRequestUnit.value + 0.5 * PRICES.dynamodbReadRequestUnit.value), 10);
});

test('Lambda: GB-seconds at the memory on arm64, plus one request per invocation', () => {
  const gbSeconds = 1e6 * 0.002 * (1024 / 1024);
  expect(costPerMillion(use, 1024).lambda).toBeCloseTo(gbSeconds * PRICES.lambdaArmGbSecond.value + 1e6 * 0.01 * PRICES.lambdaRequest.value, 10);
  expect(costPerMillion(use, 2048).lambda).toBeGreaterThan(costPerMillion(use, 1024).lambda);
});

test('SQS: a send per 10 records and a receive and a delete per 10 deliveries; a redelivery costs its receive and delete again', () => {
  expect(costPerMillion(use).sqs).toBeCloseTo(1e6 * (0.1 + 0.2) * PRICES.sqsRequest.value, 10);
  expect(costPerMillion({ ...use, redeliveriesPerEvent: 1 }).sqs).toBeCloseTo(1e6 * (0.1 + 0.4) * PRICES.sqsRequest.value, 10);
});

test('the total is the sum of the three', () => {
  const cost = costPerMillion(use);
  expect(cost.total).toBeCloseTo(cost.dynamodb + cost.lambda + cost.sqs, 12);
});
