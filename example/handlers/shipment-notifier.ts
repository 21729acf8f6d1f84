/**
 * shipment-notifier (DynamoDB Streams on the orders table, external effect): when an order is
 * SHIPPED, publishes one notification, keyed on the order, so that a replayed stream record or a
 * second SHIPPED write notifies once.
 */
import { PublishCommand } from '@aws-sdk/client-sns';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import {
  consumerEnv,
  createConsumer,
  directStrategy,
  DlqSender,
  eventIdFor,
  idempotentEffect,
  requireEnv,
  route,
  sharedClients,
  SourceKind,
  type AwsClients,
  type BatchHandler,
  type ConsumedEvent,
  type DirectResult,
  type HandlerContext,
  type IdempotentEffect,
  type RetryOptions,
} from '../../lambdas/runtime';

// zod/mini rather than zod: it tree-shakes (about 20 KiB in the bundle instead of 440), and its
// schemas are Standard Schemas like zod's. It carries no issue messages of its own; these are the
// English ones that the DLQ failure context reports.
z.config(en());

export const CONSUMER_NAME = 'shipment-notifier';
export const SHIPPED = 'SHIPPED';

const orderImage = z.object({ orderId: z.string().check(z.minLength(1)), status: z.string(), version: z.number() });
const orderChange = z.object({
  eventName: z.enum(['INSERT', 'MODIFY', 'REMOVE']),
  newImage: z.optional(orderImage),
  oldImage: z.optional(orderImage),
});
type OrderChange = z.infer<typeof orderChange>;

/** The notification body; `notificationId` is the receiver's idempotency key. */
export interface ShipmentNotification {
  readonly notificationId: string;
  readonly orderId: string;
  readonly status: typeof SHIPPED;
  readonly version: number;
}

interface NotifyInput extends ShipmentNotification {
  readonly idempotencyKey: string;
}

export interface ShipmentNotifierConfig {
  readonly topicArn: string;
  readonly idempotencyTable: string;
  readonly consumerName?: string;
  /** The consumer's generation (`CONSUMER_GENERATION`): its dedup records' namespace. @default 1 */
  readonly generation?: number;
  readonly dlqUrl?: string;
  /** How long a sent notification is remembered (`DEDUP_TTL_SECONDS`, validated by the construct). @default DEFAULT_DEDUP_TTL_SECONDS */
  readonly dedupTtlSeconds?: number;
  readonly clients: AwsClients;
  readonly retry?: RetryOptions;
}

/** The id of an order's one shipment notification. */
export function notificationIdFor(orderId: string): string {
  return eventIdFor('order.shipped', orderId);
}

/** Builds the handler from explicit settings (tests, local mode). */
export function createShipmentNotifier(config: ShipmentNotifierConfig): BatchHandler {
  const name = config.consumerName ?? CONSUMER_NAME;
  const { sns, sqs, dynamodb } = config.clients;
  const notify = idempotentEffect(async (input: NotifyInput) => {
    const notification: ShipmentNotification = { notificationId: input.notificationId, orderId: input.orderId, status: input.status, version: input.version };
    const result = await sns.send(new PublishCommand({
      TopicArn: config.topicArn,
      Message: JSON.stringify(notification),
      MessageAttributes: { eventId: { DataType: 'String', StringValue: notification.notificationId } },
    }));
    return { messageId: result.MessageId };
  }, { table: config.idempotencyTable, dynamodb, consumer: name, generation: config.generation, expiresAfterSeconds: config.dedupTtlSeconds });
  const onChange = route(orderChange, (event, context) => notifyIfShipped(event, context, notify));
  return createConsumer({
    name,
    generation: config.generation,
    source: SourceKind.DYNAMODB_STREAM,
    routes: { 'dynamodb.INSERT': onChange, 'dynamodb.MODIFY': onChange, 'dynamodb.REMOVE': onChange },
    strategy: directStrategy(config.retry),
    dlq: config.dlqUrl ? new DlqSender(sqs, config.dlqUrl, config.retry) : undefined,
  });
}

async function notifyIfShipped(event: ConsumedEvent<OrderChange>, context: HandlerContext, notify: IdempotentEffect<NotifyInput, unknown>): DirectResult {
  const order = event.payload.newImage;
  if (event.payload.eventName === 'REMOVE' || !order) return { status: 'skipped', reason: 'order removed: nothing to notify' };
  if (order.status !== SHIPPED) return { status: 'skipped', reason: `status ${order.status}: nothing to notify` };
  const notificationId = notificationIdFor(order.orderId);
  const sent = await notify.outcome({ idempotencyKey: notificationId, notificationId, orderId: order.orderId, status: SHIPPED, version: order.version }, context.lambdaContext);
  return { status: sent.status };
}

/** Reads `NOTIFICATIONS_TOPIC_ARN`, `IDEMPOTENCY_TABLE` and the common consumer settings. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShipmentNotifierConfig {
  const { consumerName, generation, dlqUrl, dedupTtlSeconds } = consumerEnv(CONSUMER_NAME, env);
  return {
    consumerName,
    generation,
    dlqUrl,
    dedupTtlSeconds,
    topicArn: requireEnv('NOTIFICATIONS_TOPIC_ARN', env),
    idempotencyTable: requireEnv('IDEMPOTENCY_TABLE', env),
    clients: sharedClients(),
  };
}

let fromEnv: BatchHandler | undefined;

/** The Lambda entry point; configured from the environment on first use. */
export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createShipmentNotifier(configFromEnv());
  return fromEnv(event, context);
};
