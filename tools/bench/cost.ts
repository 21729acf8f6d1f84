/**
 * What a user pays per million records delivered, from a strategy's measured figures and the
 * dated prices of the scale model (`tools/scale-model/assumptions.ts`, the same figures
 * docs/scale.md uses): DynamoDB's request units as the bench counted them, Lambda's billed duration
 * at the deployed memory on arm64 and its invocations, and the SQS requests that carry the records
 * (the producer's `SendMessageBatch` of 10 and the mapping's receives and deletes, again for each
 * record redelivered). Free tiers, logs and metrics are left out.
 */
import { CONSUMER_DEFAULTS } from '../../lib/defaults';
import { PRICES } from '../scale-model/assumptions';
import { sqsRequestsPerMillion } from '../scale-model/cost';
import { DEPLOYED } from '../scale-model/deployed';

const MILLION = 1_000_000;
const MS_PER_SECOND = 1000;
/** Lambda bills memory in GB of 1,024 MB. */
const MB_PER_GB = 1024;

/** A strategy's figures per record delivered that its bill depends on. */
export interface MeteredUse {
  readonly writeUnitsPerEvent: number;
  readonly readUnitsPerEvent: number;
  readonly lambdaMsPerEvent: number;
  readonly invocationsPerEvent: number;
  /** Records received again (a failed record's redelivery) per record delivered. */
  readonly redeliveriesPerEvent: number;
}

/** Dollars per million records, by service and in all. */
export interface CostPerMillion {
  readonly dynamodb: number;
  readonly lambda: number;
  readonly sqs: number;
  readonly total: number;
}

/** The bill of a million records at the measured use, with functions of `memoryMb` (the deployed consumers' by default). */
export function costPerMillion(use: MeteredUse, memoryMb: number = CONSUMER_DEFAULTS.memorySize): CostPerMillion {
  const dynamodb = MILLION * (use.writeUnitsPerEvent * PRICES.dynamodbWriteRequestUnit.value + use.readUnitsPerEvent * PRICES.dynamodbReadRequestUnit.value);
  const gbSeconds = MILLION * (use.lambdaMsPerEvent / MS_PER_SECOND) * (memoryMb / MB_PER_GB);
  const lambda = gbSeconds * PRICES.lambdaArmGbSecond.value + MILLION * use.invocationsPerEvent * PRICES.lambdaRequest.value;
  const sqs = sqsRequestsPerMillion(DEPLOYED, use.redeliveriesPerEvent).value * PRICES.sqsRequest.value;
  return { dynamodb, lambda, sqs, total: dynamodb + lambda + sqs };
}
