import type { Context, DynamoDBRecord } from 'aws-lambda';
import { parseEnvelope, validateEventId, type Envelope } from '../events/envelope';
import { UnknownEventTypeError } from '../core/errors';
import { validatePayload, type PayloadSchema } from '../events/payload-schema';
import { bodyText, SourceKind, type SourceRecord } from './records';
import { streamImages, streamNumbersOf, type DynamoStreamDecoderOptions } from './stream-image';

export type { PayloadSchema } from '../events/payload-schema';

/** An event as a handler sees it: the envelope with a validated, typed payload. */
export type ConsumedEvent<TPayload = Record<string, unknown>> = Envelope<TPayload>;

/** What a handler may use besides the event. */
export interface HandlerContext {
  readonly record: SourceRecord;
  readonly lambdaContext?: Context;
  /**
   * Aborts at the invocation's deadline (never, without a Lambda context whose clock reads a
   * time). Pass it to what can stop (the AWS SDK's `abortSignal`, `fetch`'s `signal`): on Lambda
   * Managed Instances a timeout does not stop the code, so nothing else stops the work there.
   */
  readonly signal?: AbortSignal;
}

/** How one event type is handled: its payload schema and what to do with a valid event. */
export interface Route<TPayload, TResult> {
  readonly schema?: PayloadSchema<TPayload>;
  readonly handle: (event: ConsumedEvent<TPayload>, context: HandlerContext) => TResult;
}

/**
 * Routes by event `type`. Each route's payload type is its own; `any` lets one map hold them all,
 * and {@link route} ties each schema to its handler.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Routes<TResult> = Readonly<Record<string, Route<any, TResult>>>;

/**
 * Declares a route with a schema for its payload (any Standard Schema validator: zod, valibot,
 * arktype, ...); the handler receives the validated payload, the validator's output.
 * @example
 * ```ts
 * import { increment, route } from 'effectively-once/runtime';
 * import { z } from 'zod';
 * const pageViewed = route(z.object({ pageId: z.string() }), (event) => [increment('counters', { pk: `page#${event.payload.pageId}` }, 'views')]);
 * ```
 */
export function route<TPayload, TResult>(
  schema: PayloadSchema<TPayload>,
  handle: (event: ConsumedEvent<TPayload>, context: HandlerContext) => TResult,
): Route<TPayload, TResult> {
  return { schema, handle };
}

/** Turns a source record into an event. */
export type EventDecoder = (record: SourceRecord) => ConsumedEvent;

/** SQS bodies and Kinesis data carry our JSON envelope. */
export const envelopeDecoder: EventDecoder = (record) => parseEnvelope(bodyText(record));

/**
 * The payload of an event decoded from a DynamoDB stream record. In its keys and images an `S` or
 * a `B` (base64 text, as Lambda delivers it) is a string, `SS`, `NS` and `BS` are Sets, `L` an
 * array, `M` an object, and a number (`N`) is a `number`, or a `NumberValue` under
 * `numbers: 'lossless'` (`DynamoStreamDecoderOptions`).
 */
export interface StreamChange {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly keys: Record<string, unknown>;
  readonly newImage?: Record<string, unknown>;
  readonly oldImage?: Record<string, unknown>;
}

/**
 * DynamoDB stream records carry no envelope: the event is the change itself, of type
 * `dynamodb.INSERT`, `dynamodb.MODIFY` or `dynamodb.REMOVE`. Its id is the stream record's
 * `eventID` unless `keyOf` derives a business key from the change (then a second write of the
 * same fact dedups too).
 * @throws ConfigurationError for a `numbers` option that is not a `StreamNumbers`
 * @example
 * ```ts
 * import { dynamoStreamDecoder } from 'effectively-once/runtime';
 * const decode = dynamoStreamDecoder(undefined, { numbers: 'lossless' }); // every number a NumberValue
 * ```
 */
export function dynamoStreamDecoder(keyOf?: (change: StreamChange, record: DynamoDBRecord) => string, options: DynamoStreamDecoderOptions = {}): EventDecoder {
  const numbers = streamNumbersOf(options.numbers);
  return (record) => {
    const raw = record.raw as DynamoDBRecord;
    const change: StreamChange = { eventName: raw.eventName ?? 'MODIFY', ...streamImages(raw.dynamodb, numbers) };
    return {
      eventId: validateEventId(keyOf ? keyOf(change, raw) : (raw.eventID ?? record.itemIdentifier)),
      type: `dynamodb.${change.eventName}`,
      occurredAt: record.firstSeenAt ?? new Date().toISOString(),
      source: record.sourceArn,
      payload: change as unknown as Record<string, unknown>,
    };
  };
}

/** The decoder each source uses unless the consumer names another. */
export function defaultDecoder(kind: SourceKind): EventDecoder {
  return kind === SourceKind.DYNAMODB_STREAM ? dynamoStreamDecoder() : envelopeDecoder;
}

/** The route of an event's type, with its payload validated. @throws UnknownEventTypeError, SchemaViolationError */
export function resolveRoute<TResult>(routes: Routes<TResult>, event: ConsumedEvent): { route: Route<unknown, TResult>; event: ConsumedEvent<unknown> } {
  const found = Object.prototype.hasOwnProperty.call(routes, event.type) ? (routes[event.type] as Route<unknown, TResult>) : undefined;
  if (!found) throw new UnknownEventTypeError(event.type, Object.keys(routes));
  if (!found.schema) return { route: found, event };
  return { route: found, event: { ...event, payload: validatePayload(found.schema, event.type, event.payload) } };
}
