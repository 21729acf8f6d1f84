/**
 * The schedule's publications on a modelled source (aws/model), handed to the function as Lambda
 * hands them: SQS records with their receive counts and receipt handles, Kinesis records with base64
 * data, DynamoDB stream records with their images, shaped as AWS's published sample events.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, KinesisStreamRecord, SQSRecord } from 'aws-lambda';
import { SqsQueueModel, type ReceivedMessage } from '../../aws/model/sqs-queue-model';
import { StreamShardModel, type ShardRecord } from '../../aws/model/stream-shard-model';
import type { BatchEvent, BatchResponse } from '../../lambdas/runtime/consumer/consumer';
import { eventIdFor } from '../../lambdas/runtime/events/event-id';
import { SourceKind } from '../../lambdas/runtime/decoding/records';
import { seededRandom } from '../helpers/fakes';
import { publications, type Schedule } from './schedule';
import type { World } from './world';

export const EVENT_TYPE = 'model.event';
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
/** A function timeout of 30 s, and the visibility timeout the constructs give its queue (6x). */
export const FUNCTION_TIMEOUT_MS = 30_000;
const VISIBILITY_TIMEOUT_MS = 6 * FUNCTION_TIMEOUT_MS;

/** One published message or record, and what it stands for. */
export interface Published {
  /** SQS message id, or stream sequence number: the batch item identifier. */
  readonly itemIdentifier: string;
  readonly event: number;
  readonly copy: number;
  readonly conflicting: boolean;
  readonly eventId: string;
  /** The order group: FIFO message group or partition key. */
  readonly group: string;
  /** Position in publish order. */
  readonly position: number;
}

/** A record as one invocation got it. */
export interface Delivered extends Published {
  readonly receiveCount: number;
}

export interface DeliveredBatch {
  readonly records: readonly Delivered[];
  readonly event: BatchEvent;
}

export interface ModelSource {
  readonly kind: SourceKind;
  readonly fifo: boolean;
  readonly arn: string;
  readonly published: readonly Published[];
  /** SQS: the queue's `maxReceiveCount`. */
  readonly maxReceiveCount?: number;
  next(world: World): DeliveredBatch | undefined;
  /** Lambda's handling of the answer; false when the answer was not a valid partial batch response. `staleHandlesDelete`: SQS's "might not" (SettleOptions). */
  settle(batch: DeliveredBatch, answer: BatchResponse | 'failed', staleHandlesDelete?: boolean): boolean;
  /** SQS: the batch's visibility ends before Lambda deletes it, and another poller receives it. */
  expire(batch: DeliveredBatch, world: World): void;
  /**
   * SQS: the batch's visibility ends while its invocation still runs, and another poller receives
   * its messages (with whatever else is visible) at once: that poller's batch, for an invocation
   * that runs beside the first. Undefined for a stream, or when nothing could be received.
   */
  overlap(batch: DeliveredBatch, world: World): DeliveredBatch | undefined;
  /**
   * SQS standard: a server that kept a copy of the batch's first message hands it to another poller
   * while the message is in flight (at-least-once delivery), with what else is visible: that
   * poller's batch, for an invocation that runs beside the first. Undefined for a stream or a FIFO
   * queue, or when nothing could be received.
   */
  duplicate(batch: DeliveredBatch, world: World, missedReceives: number): DeliveredBatch | undefined;
  /** When something becomes visible again, if nothing is now. */
  wakeAt(now: number): number | undefined;
  readonly drained: boolean;
  readonly movedBySqs: readonly string[];
  /** Streams: the ranges the mapping gave up on. */
  readonly onFailure: readonly { readonly startSequenceNumber: string; readonly endSequenceNumber: string }[];
}

export function eventIdOf(event: number): string {
  return eventIdFor(EVENT_TYPE, `e${event}`);
}

/** The facts a record carries: what the handler needs to find its event's script. */
export interface EventFacts {
  readonly key: string;
  readonly seq: number;
  readonly variant: number;
  readonly poison?: boolean;
}

function factsOf(schedule: Schedule, publication: Published): EventFacts | { seq: string; key: string } {
  const scheduled = schedule.events[publication.event]!;
  if (scheduled.kind === 'schema') return { key: publication.group, seq: 'not a number' };
  return { key: publication.group, seq: publication.event, variant: publication.conflicting ? publication.copy : 0, ...(scheduled.kind === 'poison' && { poison: true }) };
}

function publishedOf(schedule: Schedule, identifierOf: (position: number) => string): Published[] {
  return publications(schedule).map((publication, position) => ({
    ...publication,
    itemIdentifier: identifierOf(position),
    eventId: eventIdOf(publication.event),
    group: `k${schedule.events[publication.event]!.key}`,
    position,
  }));
}

/** The envelope (SQS body, Kinesis data) of a publication; an undecodable one is cut-off JSON. */
function envelopeBody(schedule: Schedule, publication: Published): string {
  if (schedule.events[publication.event]!.kind === 'undecodable') return `{"eventId":"${publication.eventId}","payload":`;
  return JSON.stringify({ eventId: publication.eventId, type: EVENT_TYPE, occurredAt: '2026-12-01T00:00:00.000Z', source: 'model', payload: factsOf(schedule, publication) });
}

export function createSource(schedule: Schedule, world: World): ModelSource {
  return schedule.source === 'sqs' || schedule.source === 'sqs-fifo' ? new QueueSource(schedule, world) : new ShardSource(schedule, world);
}

class QueueSource implements ModelSource {
  public readonly kind = SourceKind.SQS;
  public readonly fifo: boolean;
  public readonly arn: string;
  public readonly published: Published[];
  public readonly maxReceiveCount: number;
  private readonly queue: SqsQueueModel;
  private readonly byId: Map<string, Published>;
  private readonly shuffle: <T>(items: T[]) => T[];
  private stashed?: DeliveredBatch;

  public constructor(private readonly schedule: Schedule, world: World) {
    this.fifo = schedule.source === 'sqs-fifo';
    this.arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:model${this.fifo ? '.fifo' : ''}`;
    this.maxReceiveCount = schedule.maxAttempts + schedule.receiveSlack;
    this.queue = new SqsQueueModel({ fifo: this.fifo, visibilityTimeoutMs: VISIBILITY_TIMEOUT_MS, maxReceiveCount: this.maxReceiveCount });
    world.queue = this.queue;
    this.published = publishedOf(schedule, (position) => `m${position}`);
    this.byId = new Map(this.published.map((publication) => [publication.itemIdentifier, publication]));
    for (const publication of this.published) this.queue.send(publication.itemIdentifier, envelopeBody(schedule, publication), this.fifo ? publication.group : undefined);
    this.shuffle = seededShuffle(schedule.seed);
  }

  public next(world: World): DeliveredBatch | undefined {
    const stashed = this.stashed;
    this.stashed = undefined;
    return stashed ?? this.receive(world.now);
  }

  public settle(batch: DeliveredBatch, answer: BatchResponse | 'failed', staleHandlesDelete = false): boolean {
    return this.queue.settle(messagesOf(batch), answer, { staleHandlesDelete });
  }

  public overlap(batch: DeliveredBatch, world: World): DeliveredBatch | undefined {
    this.queue.expireVisibility(batch.records.map((record) => record.itemIdentifier), world.now);
    return this.receive(world.now);
  }

  public duplicate(batch: DeliveredBatch, world: World, missedReceives: number): DeliveredBatch | undefined {
    const first = batch.records[0];
    if (this.fifo || first === undefined || !this.queue.keepCopy(first.itemIdentifier, world.now, missedReceives)) return undefined;
    return this.receive(world.now);
  }

  /** Another poller receives the batch again before Lambda deletes it: that receive is the next batch, and the first one's receipt handles go stale. */
  public expire(batch: DeliveredBatch, world: World): void {
    this.queue.expireVisibility(batch.records.map((record) => record.itemIdentifier), world.now);
    this.stashed = this.receive(world.now);
  }

  private receive(now: number): DeliveredBatch | undefined {
    const received = this.queue.receive(now, this.schedule.batchSize, this.shuffle);
    if (received.length === 0) return undefined;
    return {
      records: received.map((message) => ({ ...this.byId.get(message.messageId)!, receiveCount: message.receiveCount })),
      event: { Records: received.map((message) => this.sqsRecord(message)) },
    };
  }

  public wakeAt(now: number): number | undefined {
    return this.queue.nextVisibleAt(now);
  }

  public get drained(): boolean {
    return this.queue.drained && this.stashed === undefined;
  }

  public get movedBySqs(): string[] {
    return this.queue.movedBySqs;
  }

  public readonly onFailure = [];

  private sqsRecord(message: ReceivedMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: '1764547200000',
        SenderId: 'AIDAMODEL',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
        ...(message.groupId !== undefined && { MessageGroupId: message.groupId, MessageDeduplicationId: message.messageId, SequenceNumber: message.messageId.slice(1).padStart(20, '0') }),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: REGION,
    };
  }
}

/** The batch's messages as the queue model handed them out (their receipt handles travel in the Lambda records). */
function messagesOf(batch: DeliveredBatch): ReceivedMessage[] {
  return (batch.event.Records as SQSRecord[]).map((record) => ({ messageId: record.messageId, body: record.body, receiveCount: Number(record.attributes.ApproximateReceiveCount), receiptHandle: record.receiptHandle, firstReceivedAt: 0 }));
}

class ShardSource implements ModelSource {
  public readonly kind: SourceKind;
  public readonly fifo = false;
  public readonly arn: string;
  public readonly published: Published[];
  private readonly shard: StreamShardModel;
  private readonly byId: Map<string, Published>;
  private readonly records: ShardRecord[];

  public constructor(private readonly schedule: Schedule, world: World) {
    this.kind = schedule.source === 'kinesis' ? SourceKind.KINESIS : SourceKind.DYNAMODB_STREAM;
    this.arn = this.kind === SourceKind.KINESIS ? `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/model` : `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/model/stream/2026-12-01T00:00:00.000`;
    this.published = publishedOf(schedule, (position) => String(49_600_000_000 + position));
    this.byId = new Map(this.published.map((publication) => [publication.itemIdentifier, publication]));
    this.records = this.published.map((publication) => ({ sequenceNumber: publication.itemIdentifier, partitionKey: publication.group, data: envelopeBody(schedule, publication), arrivedAt: world.now }));
    this.shard = new StreamShardModel(this.records, {
      batchSize: schedule.batchSize,
      bisectBatchOnFunctionError: schedule.bisect,
      maximumRetryAttempts: schedule.retryAttempts,
      maximumRecordAgeMs: schedule.maxRecordAgeMs,
    });
  }

  public next(world: World): DeliveredBatch | undefined {
    const batch = this.shard.nextBatch(world.now);
    if (batch === undefined) return undefined;
    return {
      records: batch.map((record) => ({ ...this.byId.get(record.sequenceNumber)!, receiveCount: 1 })),
      event: { Records: batch.map((record) => (this.kind === SourceKind.KINESIS ? this.kinesisRecord(record) : this.dynamoRecord(record))) } as BatchEvent,
    };
  }

  public settle(_batch: DeliveredBatch, answer: BatchResponse | 'failed'): boolean {
    return this.shard.settle(answer);
  }

  public expire(): void {}

  public overlap(): undefined {
    return undefined;
  }

  public duplicate(): undefined {
    return undefined;
  }

  public wakeAt(): undefined {
    return undefined;
  }

  public get drained(): boolean {
    return this.shard.drained;
  }

  public readonly movedBySqs = [];

  public get onFailure() {
    return this.shard.onFailure;
  }

  private kinesisRecord(record: ShardRecord): KinesisStreamRecord {
    return {
      kinesis: { kinesisSchemaVersion: '1.0', partitionKey: record.partitionKey, sequenceNumber: record.sequenceNumber, data: Buffer.from(record.data, 'utf8').toString('base64'), approximateArrivalTimestamp: record.arrivedAt / 1000 },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${record.sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${ACCOUNT}:role/model`,
      awsRegion: REGION,
      eventSourceARN: this.arn,
    };
  }

  /** A table write's stream record: the item holds the event's facts and, unless it is undecodable, its event id. */
  private dynamoRecord(record: ShardRecord): DynamoDBRecord {
    const publication = this.byId.get(record.sequenceNumber)!;
    const undecodable = this.schedule.events[publication.event]!.kind === 'undecodable';
    const item = { pk: `${publication.group}#${publication.position}`, ...(undecodable ? {} : { eventId: publication.eventId }), ...factsOf(this.schedule, publication) };
    return {
      eventID: `${publication.position}`.padStart(32, 'e'),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: REGION,
      dynamodb: {
        ApproximateCreationDateTime: record.arrivedAt / 1000,
        Keys: marshall({ pk: item.pk }) as Record<string, AttributeValue>,
        NewImage: marshall(item) as Record<string, AttributeValue>,
        SequenceNumber: record.sequenceNumber,
        SizeBytes: 120,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
      eventSourceARN: this.arn,
    };
  }
}

/** A Fisher-Yates shuffle on a seeded generator: a standard queue's order, reproducible. */
export function seededShuffle(seed: number): <T>(items: T[]) => T[] {
  const random = seededRandom(seed);
  return (items) => {
    for (let index = items.length - 1; index > 0; index -= 1) {
      const other = Math.floor(random() * (index + 1));
      [items[index], items[other]] = [items[other]!, items[index]!];
    }
    return items;
  };
}
