/**
 * The report's line per consumer: where its events come from (a queue, the same queue fed by an
 * SNS topic, a FIFO queue, a stream), what it was handed, and whether its effects came out exact
 * after the redrive. The source is read from the stack as it runs, not assumed: the template's
 * mappings, the queues' names, the SNS subscriptions local mode made.
 */
import { CONSUMER_ENV } from '../../aws/consumer-env';
import { isFifoQueue } from '../../aws/sqs/fifo';
import { CONSUMER_NAME as COUNTER_CONSUMER } from '../../example/handlers/page-view-counter';
import { CONSUMER_NAME as PROJECTION_CONSUMER } from '../../example/handlers/order-projection';
import { CONSUMER_NAME as NOTIFIER_CONSUMER } from '../../example/handlers/shipment-notifier';
import { CONSUMER_NAME as LEDGER_CONSUMER } from '../../example/handlers/account-ledger';
import { CONSUMER_NAME as PAYMENTS_CONSUMER } from '../../example/handlers/invoice-payments';
import type { MappingSpec } from '../stack/mappings';
import { queueWithUrl } from '../stack/provision';
import type { LocalStack } from '../stack/runtime';
import type { DeliveryCounter } from './deliveries';
import type { Verification } from './verify';

export const ConsumerSource = { SQS: 'sqs', SQS_FIFO: 'sqs-fifo', SNS_SQS: 'sns-sqs', KINESIS: 'kinesis', DYNAMODB_STREAM: 'dynamodb-stream' } as const;
export type ConsumerSource = (typeof ConsumerSource)[keyof typeof ConsumerSource];

/** One consumer of the run. */
export interface ConsumerReport {
  readonly name: string;
  readonly source: ConsumerSource;
  /** Records its function was handed, and how many of them it had been handed before. */
  readonly deliveries: number;
  readonly duplicateDeliveries: number;
  /** Whether the demo knows what this consumer's effects must be (the example's consumers). */
  readonly checked: boolean;
  /** Its effects match the expected state after the redrive (false when unchecked). */
  readonly exact: boolean;
  /** Its effects that differ: counters, orders, ledger accounts, invoices or payments that differ; notifications missing, doubled or unexpected. */
  readonly mismatches: number;
}

/** How many of a consumer's effects differ, for the consumers whose effects the demo knows. */
const MISMATCHES: Readonly<Record<string, (verification: Verification) => number>> = {
  [COUNTER_CONSUMER]: (verification) => verification.effects.mismatches.filter((mismatch) => mismatch.key.startsWith('counter:')).length,
  [PROJECTION_CONSUMER]: (verification) => verification.effects.mismatches.filter((mismatch) => mismatch.key.startsWith('order:')).length,
  [NOTIFIER_CONSUMER]: ({ notifications }) => notifications.missing.length + notifications.duplicated.length + notifications.unexpected.length,
  [LEDGER_CONSUMER]: (verification) => verification.effects.mismatches.filter((mismatch) => mismatch.key.startsWith('ledger:')).length,
  [PAYMENTS_CONSUMER]: (verification) => verification.effects.mismatches.filter((mismatch) => mismatch.key.startsWith('invoice:') || mismatch.key.startsWith('payment:')).length,
};

/** One line per event source mapping of the stack. */
export function consumerReports(stack: LocalStack, deliveries: DeliveryCounter, verification: Verification): ConsumerReport[] {
  return stack.mappings.map((mapping) => {
    const name = consumerNameOf(stack, mapping);
    const handed = deliveries.of(mapping.functionLogicalId);
    const mismatchesOf = MISMATCHES[name];
    const mismatches = mismatchesOf ? mismatchesOf(verification) : 0;
    return { name, source: sourceOf(stack, mapping), deliveries: handed.total, duplicateDeliveries: handed.duplicates, checked: mismatchesOf !== undefined, exact: mismatchesOf !== undefined && mismatches === 0, mismatches };
  });
}

/** The consumer a mapping feeds, by its function's `CONSUMER_NAME` (the function's logical id when it has none). */
export function consumerNameOf(stack: Pick<LocalStack, 'functionSpecs'>, mapping: Pick<MappingSpec, 'functionLogicalId'>): string {
  return stack.functionSpecs.get(mapping.functionLogicalId)?.environment[CONSUMER_ENV.consumerName] ?? mapping.functionLogicalId;
}

/** Where a mapping's events come from, read from the running stack. */
export function sourceOf(stack: Pick<LocalStack, 'resources' | 'fanOut'>, mapping: Pick<MappingSpec, 'source' | 'sourceQueueUrl'>): ConsumerSource {
  if (mapping.source === 'kinesis') return ConsumerSource.KINESIS;
  if (mapping.source === 'dynamodb-stream') return ConsumerSource.DYNAMODB_STREAM;
  const queue = queueWithUrl(stack.resources.queues, mapping.sourceQueueUrl);
  if (queue !== undefined && isFifoQueue(queue.name)) return ConsumerSource.SQS_FIFO;
  return stack.fanOut.subscriptions.some((subscription) => subscription.queue.url === mapping.sourceQueueUrl) ? ConsumerSource.SNS_SQS : ConsumerSource.SQS;
}
