/**
 * What waits in the DLQs for the redrive after the first drain: events whose failure the fix or
 * time cures (see curable.ts), and shipped orders whose notification failed. The first phase
 * checks the effects of everything else; the redrive must then bring these in, and the second
 * phase checks everything, strictly.
 */
import { SourceKind } from '../../lambdas/runtime';
import { type FailureEnvelope } from '../../aws/dlq-format';
import { isCurableFailure } from './curable';
import type { PublishedMessage } from './publisher';
import type { FinalState, OnFailurePointer } from './state';

/** The status whose change the shipment notifier turns into a notification. */
const SHIPPED = 'SHIPPED';

/** What the first phase may find missing, because the redrive will bring it. */
export interface PendingRedrive {
  /** Published events whose failure waits in a DLQ: a curable wrapper, or a stream record an on-failure pointer covers. */
  readonly eventIds: ReadonlySet<string>;
  /** Orders whose SHIPPED change waits in a DLQ of a table-stream consumer (the notifier). */
  readonly shippedOrders: ReadonlySet<string>;
}

/** Nothing pending: what the phase after the redrive checks against. */
export const NOTHING_PENDING: PendingRedrive = { eventIds: new Set(), shippedOrders: new Set() };

/** An item image as a table stream record carries it (attribute values in DynamoDB JSON). */
export type StreamImage = Readonly<Record<string, { readonly S?: string; readonly N?: string }>>;

/** Reads back the new images of the table-stream records a pointer covers. */
export type TableRangeReader = (pointer: OnFailurePointer) => Promise<readonly StreamImage[]>;

/** Collects what the DLQs hold that the redrive will send back. */
export async function pendingRedrive(state: FinalState, published: readonly PublishedMessage[], readTableRange: TableRangeReader): Promise<PendingRedrive> {
  const failures = state.dlqs.flatMap((dlq) => dlq.failures).filter((failure) => isCurableFailure(failure.error.name, failure.error.kind));
  const pointers = state.dlqs.flatMap((dlq) => dlq.pointers);
  const tablePointers = pointers.filter((pointer) => isTableStream(pointer.streamArn));
  const eventIds = new Set([...failures.flatMap((failure) => (failure.eventId ? [failure.eventId] : [])), ...coveredEventIds(published, pointers.filter((pointer) => !isTableStream(pointer.streamArn)))]);
  const images = [...failures.flatMap(tableImageOf), ...(await Promise.all(tablePointers.map((pointer) => readTableRange(pointer)))).flat()];
  return { eventIds, shippedOrders: new Set(images.flatMap(shippedOrderOf)) };
}

function isTableStream(streamArn: string): boolean {
  return /:table\/[^/]+\/stream\//.test(streamArn);
}

/** Published stream records whose sequence number lies in a pointer's range. */
function coveredEventIds(published: readonly PublishedMessage[], pointers: readonly OnFailurePointer[]): string[] {
  return published.flatMap((message) => {
    const eventId = message.event.envelope?.eventId;
    if (!eventId || !message.sequenceNumber) return [];
    const sequence = BigInt(message.sequenceNumber);
    return pointers.some((pointer) => BigInt(pointer.startSequenceNumber) <= sequence && sequence <= BigInt(pointer.endSequenceNumber)) ? [eventId] : [];
  });
}

/** A table-stream wrapper keeps the record's `dynamodb` part as its original body. */
function tableImageOf(failure: FailureEnvelope): StreamImage[] {
  if (failure.source.kind !== SourceKind.DYNAMODB_STREAM) return [];
  try {
    const change = JSON.parse(failure.original.body) as { NewImage?: StreamImage };
    return change.NewImage ? [change.NewImage] : [];
  } catch {
    return [];
  }
}

function shippedOrderOf(image: StreamImage): string[] {
  const orderId = image.orderId?.S;
  return orderId && image.status?.S === SHIPPED ? [orderId] : [];
}
