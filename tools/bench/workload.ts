/**
 * The benchmark's input: page views as SQS batches, generated from a seed, with the duplicates that
 * at-least-once delivery brings. Everything here is pure: the same options give the same batches.
 *
 * Duplicates come in the two kinds the consumer has to handle differently:
 * - in-batch duplicates: a producer retry (same eventId, a new messageId) that arrives in the same
 *   batch as the original; the consumer drops it before any write;
 * - cross-batch redeliveries: SQS hands out a message again (same messageId, receive count 2) in a
 *   later batch, after the first delivery committed but its acknowledgement was lost. `clustered`
 *   (the default) redelivers runs of one earlier batch's messages, as a lost acknowledgement or a
 *   timed-out invocation does; `scattered` redelivers single messages into random later batches,
 *   the worst case for batch commit.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { createEnvelope } from '../../lambdas/runtime';
import { pageViewEffects, PAGE_VIEWED } from '../../example/handlers/page-view-counter';
import { pick, seededRandom } from '../../emulator/faults/random';
import type { Random } from '../../emulator/types';

export const REDELIVERY_PATTERNS = ['clustered', 'scattered'] as const;
export type RedeliveryPattern = (typeof REDELIVERY_PATTERNS)[number];

/** Defaults of {@link WorkloadOptions}, shared by the CLI's help and the docs. */
export const WORKLOAD_DEFAULTS = {
  duplicateRate: 0.1,
  batchSize: 100,
  pages: 300,
  days: 5,
  redeliveries: 'clustered',
  redeliveryDelayBatches: 2,
} as const;

export interface WorkloadOptions {
  /** Records delivered, duplicates included. */
  readonly events: number;
  readonly seed: number;
  /** Share of deliveries that repeat an earlier event: half in-batch, half redeliveries. @default 0.1 */
  readonly duplicateRate?: number;
  /** @default 100 */
  readonly batchSize?: number;
  /** Pages viewed, with Zipf (s = 1) popularity. @default 300 */
  readonly pages?: number;
  /** Days the views span, in order. @default 5 */
  readonly days?: number;
  /** @default 'clustered' */
  readonly redeliveries?: RedeliveryPattern;
  /**
   * Redeliveries come back after the visibility timeout: this many batches later, at least. With
   * concurrent consumers, more than the batches in flight at once, or a redelivery races its original.
   * @default 2
   */
  readonly redeliveryDelayBatches?: number;
}

export interface Workload {
  readonly batches: readonly SQSEvent[];
  /** Records in all batches. */
  readonly deliveries: number;
  readonly distinctEvents: number;
  readonly inBatchDuplicates: number;
  readonly redeliveries: number;
  /** Views each counter item must hold once every batch is applied exactly once. */
  readonly expected: ReadonlyMap<string, number>;
}

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:page-views';
const FIRST_DAY = Date.UTC(2026, 10, 26);
const DAY_MS = 86_400_000;
/** A clustered redelivery spreads over this many batches, mixed with fresh messages. */
const REDELIVERY_SPREAD_BATCHES = 2;

/** Generates the batches; throws on options that cannot make a workload. */
export function generateWorkload(options: WorkloadOptions): Workload {
  const settings = { ...WORKLOAD_DEFAULTS, ...options };
  validate(settings);
  const random = seededRandom(settings.seed);
  const duplicates = Math.round(settings.events * settings.duplicateRate);
  const redeliveries = Math.ceil(duplicates / 2);
  const inBatch = duplicates - redeliveries;
  const distinct = settings.events - duplicates;
  const originals = originalRecords(random, distinct, settings);
  const units = withInBatchCopies(random, originals, inBatch);
  const batches = assemble(random, units, redeliveries, settings);
  return {
    batches: batches.map((records) => ({ Records: records })),
    deliveries: settings.events,
    distinctEvents: distinct,
    inBatchDuplicates: inBatch,
    redeliveries,
    expected: expectedCounts(originals),
  };
}

function validate(settings: Required<WorkloadOptions>): void {
  if (!Number.isInteger(settings.events) || settings.events < 1) throw new RangeError(`events must be a whole number >= 1 (given ${settings.events})`);
  if (!(settings.duplicateRate >= 0 && settings.duplicateRate < 0.5)) throw new RangeError(`duplicateRate must be 0..0.5 (given ${settings.duplicateRate})`);
  if (!Number.isInteger(settings.batchSize) || settings.batchSize < 2 || settings.batchSize > 10_000) throw new RangeError(`batchSize must be 2..10000 (given ${settings.batchSize})`);
  if (!Number.isInteger(settings.pages) || settings.pages < 1) throw new RangeError(`pages must be a whole number >= 1 (given ${settings.pages})`);
  if (!Number.isInteger(settings.days) || settings.days < 1) throw new RangeError(`days must be a whole number >= 1 (given ${settings.days})`);
  if (!Number.isInteger(settings.redeliveryDelayBatches) || settings.redeliveryDelayBatches < 1) throw new RangeError(`redeliveryDelayBatches must be a whole number >= 1 (given ${settings.redeliveryDelayBatches})`);
  if (!REDELIVERY_PATTERNS.includes(settings.redeliveries)) throw new RangeError(`redeliveries must be one of ${REDELIVERY_PATTERNS.join(', ')} (given ${settings.redeliveries})`);
}

/** The first delivery of each distinct event, in time order over the days. */
function originalRecords(random: Random, count: number, settings: Required<WorkloadOptions>): SQSRecord[] {
  const page = zipfSampler(settings.pages);
  return Array.from({ length: count }, (_, index) => {
    const occurredAt = new Date(FIRST_DAY + Math.floor((index / count) * settings.days * DAY_MS)).toISOString();
    const envelope = createEnvelope({ type: PAGE_VIEWED, businessKey: `bench-${settings.seed}-${index}`, source: 'bench.web', payload: { pageId: `page-${page(random)}` }, occurredAt });
    return sqsRecord(JSON.stringify(envelope), messageId(random), 1);
  });
}

/** Each original, followed by a producer retry of it in `copies` randomly chosen cases; a unit never splits across batches. */
function withInBatchCopies(random: Random, originals: readonly SQSRecord[], copies: number): SQSRecord[][] {
  const copied = new Set(sample(random, originals.length, copies));
  return originals.map((record, index) => (copied.has(index) ? [record, sqsRecord(record.body, messageId(random), 1)] : [record]));
}

/** Fills batches with fresh units and the redeliveries due, then shuffles each batch (SQS order is arbitrary). */
function assemble(random: Random, units: readonly SQSRecord[][], redeliveries: number, settings: Required<WorkloadOptions>): SQSRecord[][] {
  const batchSize = settings.batchSize;
  const freshBatches = Math.max(1, Math.ceil(units.reduce((sum, unit) => sum + unit.length, 0) / batchSize));
  const due = new Map<number, SQSRecord[]>();
  const batches: SQSRecord[][] = [];
  let remaining = redeliveries;
  let next = 0;
  const episodeEvery = Math.max(1, Math.floor(freshBatches / Math.max(1, Math.ceil(redeliveries / batchSize))));
  for (let index = 0; next < units.length || due.size > 0; index++) {
    const batch = arrivals(due, index, batchSize);
    while (next < units.length && batch.length + (units[next]?.length ?? 0) <= batchSize) batch.push(...(units[next++] ?? []));
    if (batch.length === 0) continue;
    batches.push(shuffle(random, batch));
    remaining -= scheduleRedeliveries(random, batch, index, remaining, settings.redeliveries === 'scattered' || index % episodeEvery === 0, settings, due);
  }
  if (remaining > 0) throw new RangeError(`too few events (${settings.events}) to schedule ${redeliveries} redeliveries`);
  return batches;
}

/** The redeliveries due at `index`, at most a batch of them; the rest move to the next batch. */
function arrivals(due: Map<number, SQSRecord[]>, index: number, batchSize: number): SQSRecord[] {
  const arriving = due.get(index) ?? [];
  due.delete(index);
  if (arriving.length > batchSize) due.set(index + 1, [...arriving.slice(batchSize), ...(due.get(index + 1) ?? [])]);
  return arriving.slice(0, batchSize);
}

/** Schedules redeliveries of some of `batch`'s messages into later batches; returns how many. */
function scheduleRedeliveries(random: Random, batch: readonly SQSRecord[], index: number, budget: number, now: boolean, settings: Required<WorkloadOptions>, due: Map<number, SQSRecord[]>): number {
  if (budget <= 0 || !now) return 0;
  const scattered = settings.redeliveries === 'scattered';
  const perBatch = Math.ceil((settings.events * settings.duplicateRate) / 2 / Math.max(1, Math.ceil(settings.events / settings.batchSize)));
  const count = Math.min(budget, scattered ? Math.max(1, perBatch) : batch.length);
  const chosen = scattered ? sample(random, batch.length, count) : Array.from({ length: count }, (_, position) => position);
  chosen.forEach((position, order) => {
    const original = batch[position] as SQSRecord;
    const spread = scattered ? pick(random, 3) : Math.floor((order * REDELIVERY_SPREAD_BATCHES) / count);
    const target = index + settings.redeliveryDelayBatches + spread;
    due.set(target, [...(due.get(target) ?? []), redelivered(original)]);
  });
  return count;
}

function expectedCounts(originals: readonly SQSRecord[]): Map<string, number> {
  const expected = new Map<string, number>();
  for (const record of originals) {
    const envelope = JSON.parse(record.body) as { payload: { pageId: string }; occurredAt: string };
    for (const effect of pageViewEffects('counters', envelope.payload.pageId, envelope.occurredAt)) {
      const pk = String(effect.key.pk);
      expected.set(pk, (expected.get(pk) ?? 0) + 1);
    }
  }
  return expected;
}

/** An SQS record as Lambda delivers it. */
function sqsRecord(body: string, id: string, receiveCount: number): SQSRecord {
  return {
    messageId: id,
    receiptHandle: `handle-${id}-${receiveCount}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(FIRST_DAY),
      SenderId: 'BENCH',
      ApproximateFirstReceiveTimestamp: String(FIRST_DAY),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'us-east-1',
  };
}

function redelivered(record: SQSRecord): SQSRecord {
  return sqsRecord(record.body, record.messageId, Number(record.attributes.ApproximateReceiveCount) + 1);
}

function messageId(random: Random): string {
  const hex = Array.from({ length: 32 }, () => pick(random, 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Page ranks 1..n drawn with probability proportional to 1 / rank: a few pages get most views. */
function zipfSampler(pages: number): (random: Random) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= pages; rank++) cumulative.push((total += 1 / rank));
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}

/** `count` distinct indexes of [0, n). */
function sample(random: Random, n: number, count: number): number[] {
  const indexes = Array.from({ length: n }, (_, index) => index);
  for (let i = 0; i < Math.min(count, n); i++) {
    const j = i + pick(random, n - i);
    [indexes[i], indexes[j]] = [indexes[j] as number, indexes[i] as number];
  }
  return indexes.slice(0, Math.min(count, n));
}

function shuffle<T>(random: Random, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = pick(random, i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** The record as SQS hands it out on its next receive: one more receive, a new receipt handle. */
export function receivedAgain(record: SQSRecord): SQSRecord {
  const count = Number(record.attributes.ApproximateReceiveCount) + 1;
  return { ...record, receiptHandle: `${record.receiptHandle}-${count}`, attributes: { ...record.attributes, ApproximateReceiveCount: String(count) } };
}
