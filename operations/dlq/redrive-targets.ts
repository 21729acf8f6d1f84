/**
 * Where a redrive may write, decided in one place for every kind of message, and for a replay too:
 * only to a source that the stack's topology links to the DLQ (or failure archive) being drained
 * (dlq-links.ts: the queues whose redrive policy names it, the stream mappings whose on-failure
 * destination is it or its archive, and the sources of the functions that send it their failures).
 *
 * The target a message names (a wrapper's `source.arn`, a pointer's or an archived batch's
 * `streamArn`, a bare message's `DeadLetterQueueSourceArn`) is data that whoever sends to the DLQ
 * writes: every consumer role can, and so can any code running in those functions. So it is only a
 * key to look a source up by, never an address: a queue's URL comes from the topology, never from
 * SQS (`GetQueueUrl` with the account an ARN names would find a queue of any account), and a
 * stream's name from the topology too.
 */
import { streamNameOf } from '../../aws/streams/kinesis-reader';
import { TargetNotASourceError } from './errors';
import { isTableStreamArn } from './stream-range';
import type { DlqInfo, StackTopology } from './types';

/** What a target is, by its ARN. */
export const TargetKind = {
  QUEUE: 'queue',
  KINESIS_STREAM: 'Kinesis stream',
  TABLE_STREAM: 'table stream',
} as const;
export type TargetKind = (typeof TargetKind)[keyof typeof TargetKind];

/** A source queue of the DLQ, with the URL the stack gives it. */
export interface QueueTarget {
  readonly kind: typeof TargetKind.QUEUE;
  readonly arn: string;
  readonly url: string;
}

/** A Kinesis stream that is a source of the DLQ, by the name the stack gives it. */
export interface KinesisTarget {
  readonly kind: typeof TargetKind.KINESIS_STREAM;
  readonly arn: string;
  readonly streamName: string;
}

/** A table's stream that is a source of the DLQ: its records go to the stack's consumer function (stream-reinvoke.ts). */
export interface TableStreamTarget {
  readonly kind: typeof TargetKind.TABLE_STREAM;
  readonly arn: string;
}

export type RedriveTarget = QueueTarget | KinesisTarget | TableStreamTarget;

/** The kind an ARN names, if it names one a redrive can write to. */
export function targetKindOf(arn: string): TargetKind | undefined {
  if (/^arn:[^:]+:sqs:[^:]*:[^:]*:[^:/]+$/.test(arn)) return TargetKind.QUEUE;
  if (isTableStreamArn(arn)) return TargetKind.TABLE_STREAM;
  if (/^arn:[^:]+:kinesis:[^:]*:[^:]*:stream\/[^/]+$/.test(arn)) return TargetKind.KINESIS_STREAM;
  return undefined;
}

/**
 * The source of `dlq` that `arn` names, resolved from the topology.
 * @param expected what the message says the source is (an SQS record's wrapper and a bare message name a queue)
 * @throws TargetNotASourceError when it is not a source of `dlq`, not of the kind expected, or not a resource of the stack
 */
export function sourceTarget(topology: StackTopology, dlq: DlqInfo, arn: string, expected?: readonly TargetKind[]): RedriveTarget {
  const kind = targetKindOf(arn);
  if (!dlq.sources.some((source) => source.arn === arn)) throw new TargetNotASourceError(arn, `the sources of ${dlq.name}: ${dlq.sources.map((source) => source.arn).join(', ') || 'none'}`);
  if (kind === undefined || (expected !== undefined && !expected.includes(kind))) throw new TargetNotASourceError(arn, `the message names a ${expected?.join(' or ') ?? 'queue or stream'}, and this is ${kind === undefined ? 'neither' : `a ${kind}`}`);
  switch (kind) {
    case TargetKind.QUEUE:
      return { kind, arn, url: stackQueueUrl(topology, arn) };
    case TargetKind.KINESIS_STREAM:
      return { kind, arn, streamName: topology.streams.find((stream) => stream.arn === arn)?.name ?? streamNameOf(arn) };
    case TargetKind.TABLE_STREAM:
      return { kind, arn };
  }
}

/** {@link sourceTarget} for a message that names a queue. */
export function sourceQueue(topology: StackTopology, dlq: DlqInfo, arn: string): QueueTarget {
  return sourceTarget(topology, dlq, arn, [TargetKind.QUEUE]) as QueueTarget;
}

/**
 * The URL the stack gives a queue of its own.
 * @throws TargetNotASourceError for a queue the stack does not hold: no other account's, no other stack's
 */
export function stackQueueUrl(topology: StackTopology, arn: string): string {
  const queue = topology.queues.find((candidate) => candidate.arn === arn);
  if (queue === undefined) throw new TargetNotASourceError(arn, `not a queue of stack ${topology.stackName}`);
  return queue.url;
}
