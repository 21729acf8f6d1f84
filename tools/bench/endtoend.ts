/**
 * End to end, SQS only: how many messages per second local mode moves through an SQS event
 * source mapping with a handler that does nothing, against what fauxqs itself allows in the same
 * run: send, receive, delete and nothing else. Each side gets a fresh queue, sends every message
 * the same way (10 per `SendMessageBatch`), then drains the queue: the raw side with plain
 * receive-and-delete loops, as many as the mapping has pollers; the mapping side through
 * `SqsMapping` with the demo's settings. Sending first and draining after keeps the two phases
 * apart: the drain ratio is the mapping's own overhead. Both sides are warmed up first, then
 * measured in alternating rounds; medians are reported.
 */
import { CreateQueueCommand, DeleteMessageBatchCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOCAL_REGION } from '../../emulator/engines';
import { SqsMapping } from '../../emulator/event-sources';
import type { Invoker } from '../../emulator/types';
import { median } from './median';
import { SQS_LIMITS } from '../../aws/limits';

/** The demo's page-view mapping (`lib/event-pipeline-stack.ts`) and local mode's pollers. */
export const DEMO_MAPPING = { batchSize: 100, maximumBatchingWindowSeconds: 1, concurrency: 2 } as const;

const WARMUP_MESSAGES = 1_000;
const VISIBILITY_TIMEOUT_SECONDS = 30;
const WATCH_INTERVAL_MS = 5;
/** Far more than either side needs; a pipeline that has not moved every message by then is stuck. */
const DEADLINE_MS_PER_MESSAGE = 20;
const DEADLINE_MIN_MS = 30_000;

export interface EndToEnd {
  readonly messages: number;
  /** Send, receive, delete: fauxqs's own limit on this machine, with as many consumers as the mapping has pollers. */
  readonly rawEventsPerSecond: number;
  /** The same messages sent the same way, drained by `SqsMapping` with the demo's settings and a no-op function. */
  readonly mappingEventsPerSecond: number;
  /** mapping / raw, send and drain. */
  readonly ratio: number;
  /** The drain alone (receive and delete, or the mapping), after the queue was filled. */
  readonly rawDrainEventsPerSecond: number;
  readonly mappingDrainEventsPerSecond: number;
  /** mapping / raw, drain alone: the mapping's own overhead. */
  readonly drainRatio: number;
}

/** Send-and-drain rounds per side; the median is reported. */
export const END_TO_END_ROUNDS = 3;

export async function measureEndToEnd(sqs: SQSClient, messages: number, rounds = END_TO_END_ROUNDS): Promise<EndToEnd> {
  const sides = { raw: (queue: Queue) => rawDrain(sqs, queue, messages), mapping: (queue: Queue) => mappingDrain(sqs, queue, messages) };
  await warmUp(sqs, Math.min(messages, WARMUP_MESSAGES));
  const timings: Record<keyof typeof sides, { send: number; drain: number }[]> = { raw: [], mapping: [] };
  for (let round = 0; round < rounds; round++) {
    // Alternate which side goes first, so that neither always meets the queue engine in the same state.
    for (const side of round % 2 === 0 ? (['raw', 'mapping'] as const) : (['mapping', 'raw'] as const)) timings[side].push(await sendThenDrain(sqs, messages, sides[side]));
  }
  const total = (side: keyof typeof sides): number => median(timings[side].map((timing) => timing.send + timing.drain));
  const drain = (side: keyof typeof sides): number => median(timings[side].map((timing) => timing.drain));
  return {
    messages,
    rawEventsPerSecond: messages / total('raw'),
    mappingEventsPerSecond: messages / total('mapping'),
    ratio: total('raw') / total('mapping'),
    rawDrainEventsPerSecond: messages / drain('raw'),
    mappingDrainEventsPerSecond: messages / drain('mapping'),
    drainRatio: drain('raw') / drain('mapping'),
  };
}

/** Unmeasured: warms fauxqs and both code paths. */
async function warmUp(sqs: SQSClient, messages: number): Promise<void> {
  await sendThenDrain(sqs, messages, (queue) => rawDrain(sqs, queue, messages));
  await sendThenDrain(sqs, messages, (queue) => mappingDrain(sqs, queue, messages));
}

interface Queue {
  readonly url: string;
  readonly arn: string;
}

/** Seconds to send every message to a fresh queue, and to drain it with `drain` (which resolves with the time of its last delete). */
async function sendThenDrain(sqs: SQSClient, messages: number, drain: (queue: Queue) => Promise<number>): Promise<{ send: number; drain: number }> {
  const queue = await createQueue(sqs);
  try {
    const started = performance.now();
    await send(sqs, queue.url, messages);
    const sent = performance.now();
    const drained = await drain(queue);
    return { send: (sent - started) / 1000, drain: (drained - sent) / 1000 };
  } finally {
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queue.url }));
  }
}

async function createQueue(sqs: SQSClient): Promise<Queue> {
  const name = `bench-e2e-${randomBytes(4).toString('hex')}`;
  const { QueueUrl: url } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS) } }));
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  if (!url || !Attributes?.QueueArn) throw new Error(`queue ${name} was created without a URL or ARN`);
  return { url, arn: Attributes.QueueArn };
}

async function send(sqs: SQSClient, queueUrl: string, messages: number): Promise<void> {
  for (let sent = 0; sent < messages; sent += SQS_LIMITS.maxBatchEntries) {
    const Entries = Array.from({ length: Math.min(SQS_LIMITS.maxBatchEntries, messages - sent) }, (_, index) => ({ Id: String(index), MessageBody: `{"n":${sent + index}}` }));
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries }));
  }
}

/** As many receive-and-delete loops as the mapping has pollers, until every message is deleted. */
async function rawDrain(sqs: SQSClient, queue: Queue, messages: number): Promise<number> {
  const state = { deleted: 0, finished: 0 };
  const deadline = deadlineFor(messages);
  await Promise.all(Array.from({ length: DEMO_MAPPING.concurrency }, () => rawLoop(sqs, queue.url, messages, state, deadline)));
  return state.finished;
}

async function rawLoop(sqs: SQSClient, queueUrl: string, messages: number, state: { deleted: number; finished: number }, deadline: number): Promise<void> {
  while (state.deleted < messages) {
    if (Date.now() > deadline) throw stuck('raw consumers', state.deleted, messages);
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: SQS_LIMITS.maxReceiveMessages, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) continue;
    const Entries = Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle }));
    const { Successful = [] } = await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries }));
    state.deleted += Successful.length;
    if (state.deleted >= messages) state.finished ||= performance.now();
  }
}

const noOp: Invoker = async () => ({ ok: true, response: { batchItemFailures: [] }, durationMs: 0 });

async function mappingDrain(sqs: SQSClient, queue: Queue, messages: number): Promise<number> {
  const mapping = new SqsMapping({
    queueUrl: queue.url,
    queueArn: queue.arn,
    region: LOCAL_REGION,
    batchSize: DEMO_MAPPING.batchSize,
    maximumBatchingWindowSeconds: DEMO_MAPPING.maximumBatchingWindowSeconds,
    reportBatchItemFailures: true,
    visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
    concurrency: DEMO_MAPPING.concurrency,
    invoke: noOp,
    sqs,
  });
  mapping.start();
  try {
    const deadline = deadlineFor(messages);
    while (mapping.stats.deleted < messages) {
      if (Date.now() > deadline) throw stuck('the SQS mapping', mapping.stats.deleted, messages);
      await sleep(WATCH_INTERVAL_MS);
    }
    return performance.now();
  } finally {
    // Not timed: stopping abandons the pollers' long polls of the empty queue.
    await mapping.stop();
  }
}

function deadlineFor(messages: number): number {
  return Date.now() + Math.max(DEADLINE_MIN_MS, messages * DEADLINE_MS_PER_MESSAGE);
}

function stuck(consumer: string, deleted: number, messages: number): Error {
  return new Error(`end to end: ${consumer} deleted ${deleted} of ${messages} messages before the deadline; is fauxqs still running?`);
}
