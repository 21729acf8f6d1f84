/**
 * Fakes for unit tests. They are fakes, not emulators, on purpose: every unit test that uses them
 * checks behaviour that is ours (which command we build, what we do with a partial failure, how we
 * classify an error), not the engine's. Engine behaviour is covered by the integration tests.
 *
 * An AWS client here is a tiny object with a `send` method that records each command and answers
 * with whatever the test scripts; cast it to the client type at the call site with `asClient`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { Observability } from '../../lambdas/runtime/core/observability';
import type { MetricName } from '../../lambdas/runtime/core/observability';
import type { Sleep } from '../../lambdas/runtime/core/backoff';

/** An AWS SDK v3 command as the fake sees it: its class name and its input. */
export interface RecordedCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** Answers one command: return the output, or throw to simulate a failed call. */
export type Responder = (command: RecordedCommand, call: number) => unknown;

/** A client whose `send` records commands and answers through the responder. */
export class FakeClient {
  public readonly commands: RecordedCommand[] = [];

  public constructor(private responder: Responder = () => ({})) {}

  public readonly send = async (command: { constructor: { name: string }; input: unknown }): Promise<unknown> => {
    const recorded = { name: command.constructor.name, input: command.input as Record<string, unknown> };
    this.commands.push(recorded);
    return this.responder(recorded, this.commands.length);
  };

  /** Replaces the responder, e.g. to make later calls succeed. */
  public respondWith(responder: Responder): void {
    this.responder = responder;
  }

  public commandsNamed(name: string): RecordedCommand[] {
    return this.commands.filter((command) => command.name === name);
  }
}

/** Casts a fake to the client type a runtime function expects. */
export function asClient<T>(fake: FakeClient): T {
  return fake as unknown as T;
}

/** An AWS SDK-shaped service error: the fields `classifyError` reads. */
export function awsError(name: string, httpStatusCode: number, message = `${name} (simulated)`): Error {
  return Object.assign(new Error(message), { name, $fault: httpStatusCode >= 500 ? 'server' : 'client', $metadata: { httpStatusCode } });
}

/** DynamoDB's refusal of a TransactWriteItems, with its reasons in the order of the actions. */
export function transactionCancelled(reasons: CancellationReason[]): TransactionCanceledException {
  const codes = reasons.map((reason) => reason.Code ?? 'Unknown').join(', ');
  return new TransactionCanceledException({ message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`, $metadata: { httpStatusCode: 400 }, CancellationReasons: reasons });
}

/** A sleep that records the delays it was asked for and returns at once. */
export function recordingSleep(): Sleep & { readonly delays: number[] } {
  const delays: number[] = [];
  const sleep = async (ms: number): Promise<void> => {
    delays.push(ms);
  };
  return Object.assign(sleep, { delays });
}

export const noSleep: Sleep = async () => undefined;

/** A seeded PRNG (the one local mode draws its faults from), so that statistical tests are reproducible. */
export { seededRandom } from '../../emulator/faults/random';

/**
 * Observability that prints nothing and records metric counts, so that tests can assert on them.
 * Powertools Metrics would otherwise write EMF lines (and "No application metrics" warnings)
 * straight to stdout, past Jest's console capture.
 */
export function recordingObservability(): Observability & { readonly counts: Map<MetricName, number>; readonly flushes: () => number } {
  const counts = new Map<MetricName, number>();
  let flushed = 0;
  const metrics = { publishStoredMetrics: () => (flushed += 1) } as unknown as Metrics;
  return {
    logger: new Logger({ serviceName: 'unit-test', logLevel: 'SILENT' }),
    metrics,
    count: (name, value = 1) => {
      if (value > 0) counts.set(name, (counts.get(name) ?? 0) + value);
    },
    counts,
    flushes: () => flushed,
  };
}

/**
 * What an ordered target accepted, per order key, in the order it accepted it: an SQS FIFO queue
 * keeps order per message group, a Kinesis shard per partition key, an SNS FIFO topic per message
 * group. `refusals(payload)` says how many times an entry is refused before it is accepted (a
 * throttled shard, an internal error); a refused entry does not stop later entries of its key in
 * the same request, as on AWS. Tests check the logs against the publish order.
 */
export class AcceptedLog {
  public readonly byKey = new Map<string, string[]>();
  private readonly refusedSoFar = new Map<string, number>();

  public constructor(private readonly refusals: (payload: string) => number = () => 0) {}

  /** Accepts `payload` under `key` unless it is to be refused once more; returns whether it was accepted. */
  public offer(key: string, payload: string): boolean {
    const refused = this.refusedSoFar.get(payload) ?? 0;
    if (refused < this.refusals(payload)) {
      this.refusedSoFar.set(payload, refused + 1);
      return false;
    }
    this.byKey.set(key, [...(this.byKey.get(key) ?? []), payload]);
    return true;
  }
}

/** `SendMessageBatch` into an SQS FIFO queue whose groups are `log`'s keys. */
export function fifoQueueFake(log: AcceptedLog): FakeClient {
  return new FakeClient((command) => {
    const entries = command.input.Entries as { Id: string; MessageBody: string; MessageGroupId?: string }[];
    const outcomes = entries.map((entry) => ({ entry, accepted: log.offer(entry.MessageGroupId ?? '', entry.MessageBody) }));
    return {
      Successful: outcomes.filter(({ accepted }) => accepted).map(({ entry }) => ({ Id: entry.Id, MessageId: `sqs-${entry.Id}` })),
      Failed: outcomes.filter(({ accepted }) => !accepted).map(({ entry }) => ({ Id: entry.Id, SenderFault: false, Code: 'InternalError' })),
    };
  });
}

/** `PutRecords` into a Kinesis stream whose partition keys are `log`'s keys (payloads: the data as UTF-8). */
export function kinesisStreamFake(log: AcceptedLog): FakeClient {
  let sequence = 0;
  return new FakeClient((command) => {
    const records = command.input.Records as { Data: Uint8Array; PartitionKey: string }[];
    const results = records.map((record) =>
      log.offer(record.PartitionKey, Buffer.from(record.Data).toString('utf8'))
        ? { SequenceNumber: String((sequence += 1)), ShardId: 'shardId-000000000000' }
        : { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded for shard shardId-000000000000' },
    );
    return { FailedRecordCount: results.filter((result) => 'ErrorCode' in result).length, Records: results };
  });
}

/** `Publish` to an SNS FIFO topic whose groups are `log`'s keys; a refused publish is throttled. Each publish yields once, so that publishes in flight interleave. */
export function fifoTopicFake(log: AcceptedLog): FakeClient {
  return new FakeClient(async (command) => {
    await new Promise((resolve) => setImmediate(resolve));
    const input = command.input as { Message: string; MessageGroupId?: string };
    if (!log.offer(input.MessageGroupId ?? '', input.Message)) throw awsError('Throttling', 400, 'Rate exceeded');
    return { MessageId: `sns-${input.Message}` };
  });
}
