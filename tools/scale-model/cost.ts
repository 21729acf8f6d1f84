/**
 * Dollars per million events delivered, duplicates included: DynamoDB request units (as the bench
 * counted them), Lambda compute for the time a batch takes and one request per batch, and the SQS
 * requests that carry the events (the producer's `SendMessageBatch` of 10, the mapping's receives
 * and deletes). Free tiers, logs, metrics and failed invocations are left out.
 */
import { ASSUMED, PRICES } from './assumptions';
import type { BenchStrategy } from './bench-input';
import type { DeployedSettings } from './deployed';
import { perEvent, type BatchDuration } from './duration';
import { assumed, documented, measured, over, plus, times, type Figure } from './figures';

const EVENTS = 1_000_000;

export interface CostRow {
  readonly strategy: string;
  readonly dynamodbWrites: Figure;
  readonly dynamodbReads: Figure;
  /** arm64, as deployed, for the projected duration. */
  readonly lambdaCompute: Figure;
  /** arm64 for the duration measured against DynamoDB Local. */
  readonly lambdaComputeLocal: Figure;
  readonly lambdaComputeX86: Figure;
  readonly lambdaRequests: Figure;
  readonly sqsRequests: Figure;
  readonly total: Figure;
  readonly totalLocal: Figure;
}

/** The cost of a million events of `strategy`, with batches of `batchSize` lasting `duration`. */
export function costRow(strategy: BenchStrategy, duration: BatchDuration, batchSize: number, settings: DeployedSettings): CostRow {
  const dynamodbWrites = times(measured(strategy.writeUnitsPerEvent), documented(EVENTS), documented(PRICES.dynamodbWriteRequestUnit.value));
  const dynamodbReads = times(measured(strategy.readUnitsPerEvent), documented(EVENTS), documented(PRICES.dynamodbReadRequestUnit.value));
  const compute = (batchMs: Figure, price: number): Figure => times(gbSecondsPerMillion(batchMs, batchSize, settings.memoryMb), documented(price));
  const lambdaRequests = times(over(documented(EVENTS), measured(batchSize)), documented(PRICES.lambdaRequest.value));
  const sqsRequests = times(sqsRequestsPerMillion(settings), documented(PRICES.sqsRequest.value));
  const fixed = [dynamodbWrites, dynamodbReads, lambdaRequests, sqsRequests];
  const lambdaCompute = compute(duration.projectedMs, PRICES.lambdaArmGbSecond.value);
  const lambdaComputeLocal = compute(duration.localMs, PRICES.lambdaArmGbSecond.value);
  return {
    strategy: strategy.name,
    dynamodbWrites,
    dynamodbReads,
    lambdaCompute,
    lambdaComputeLocal,
    lambdaComputeX86: compute(duration.projectedMs, PRICES.lambdaX86GbSecond.value),
    lambdaRequests,
    sqsRequests,
    total: plus(...fixed, lambdaCompute),
    totalLocal: plus(...fixed, lambdaComputeLocal),
  };
}

/** GB-seconds of a million events: memory in GB (MB / 1024, as Lambda bills it) times seconds per event. */
function gbSecondsPerMillion(batchMs: Figure, batchSize: number, memoryMb: number): Figure {
  return times(documented(memoryMb / 1024), over(perEvent(batchMs, batchSize), documented(1000)), documented(EVENTS));
}

/**
 * Sends of the producer's batches, plus the mapping's receives and deletes of
 * {@link ASSUMED.sqsMessagesPerReceive} each, again for each record received anew (a failed
 * record's redelivery; the bench measures how many per record delivered).
 */
export function sqsRequestsPerMillion(settings: DeployedSettings, redeliveriesPerEvent = 0): Figure {
  const sends = over(documented(EVENTS), documented(settings.producerBatchEntries));
  const deliveries = times(documented(EVENTS), measured(1 + redeliveriesPerEvent));
  const receivesAndDeletes = times(documented(2), over(deliveries, assumed(ASSUMED.sqsMessagesPerReceive.value)));
  return plus(sends, receivesAndDeletes);
}
