/**
 * Everything the consumer under test talks to, faked over the reference models (aws/model): a
 * DynamoDB client over the in-memory tables, an SQS client for the DLQ and for visibility changes,
 * a virtual clock, and the faults the schedule injects. No local engine can be told to crash a
 * function between a commit and its answer, or to run a DLQ outage for exactly one invocation, so
 * these are fakes on purpose; the engines' own behaviour is covered by the integration tests.
 *
 * A crash kills the world until the next invocation: the call that crashed (after its write, for
 * `crash-after`) and every later call fail without effect, as nothing runs after a function dies,
 * and the runner throws the invocation's answer away. The `sql` strategy's Data API calls take the
 * same faults, clock and crashes through the world's store calls (test/model/data-api-client.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException, TransactionCanceledException, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { Scheduler } from 'fast-check';
import type { FailureEnvelope } from '../../aws/dlq-format';
import { DynamoDbTableModel } from '../../aws/model/dynamodb-table-model';
import type { Item } from '../../aws/model/dynamodb-expressions';
import type { SqsQueueModel } from '../../aws/model/sqs-queue-model';
import { awsError, transactionCancelled } from '../helpers/fakes';
import type { Schedule, StoreFault } from './schedule';

export const IDEMPOTENCY_TABLE = 'idempotency';
export const EFFECTS_TABLE = 'effects';
/** The effects item of one event: `event#<eventId>`. */
export const EVENT_ITEM_PREFIX = 'event#';

/** What one invocation did, as the fakes saw it. */
export interface InvocationTrace {
  /** Item identifiers whose handler ran (direct: the effect itself). */
  readonly handlerRuns: string[];
  /** Item identifiers whose handler threw. */
  readonly handlerThrows: string[];
  /** Event ids whose dedup put went out in a transaction. */
  readonly dedupAttempts: Set<string>;
  /** Event ids whose effect committed, in commit order. */
  readonly applied: string[];
  readonly dlqSends: FailureEnvelope[];
  crashed: boolean;
  readonly dlqDown: boolean;
  /** DynamoDB reads (BatchGetItem) that failed: the runtime could not tell whether an event applied. */
  failedReads: number;
}

/**
 * What belongs to one invocation: its trace, whether its function died, its deadline. Invocations
 * that run at once (`World.during`) each have their own, found through the async context; the
 * runner's one-at-a-time invocations share the world's own.
 */
interface InvocationScope {
  readonly invocation: number;
  trace: InvocationTrace;
  dead: boolean;
  deadline: number;
}

class Crash extends Error {
  public constructor() {
    super('the function died (injected crash)');
    this.name = 'InjectedCrash';
  }
}

/**
 * One for every world: Node keeps each AsyncLocalStorage that ever ran in a list it walks at every
 * promise's creation, so a storage per world made each schedule slower than the one before (10,000
 * schedules with invocations at once took tens of minutes, not a few).
 */
const INVOCATION_SCOPES = new AsyncLocalStorage<InvocationScope>();

export class World {
  public readonly tables = new DynamoDbTableModel({ [IDEMPOTENCY_TABLE]: ['id'], [EFFECTS_TABLE]: ['pk'] });
  public now = Date.parse('2026-12-01T00:00:00.000Z');
  public queue?: SqsQueueModel;
  /** Event ids in the order their effect committed, over the whole run. */
  public readonly appliedLog: string[] = [];
  /**
   * Set for invocations that run at once: every store call and SQS call is then a step the
   * scheduler releases, so that fast-check decides (and shrinks, and replays) their interleaving.
   */
  public scheduler?: Scheduler;
  private readonly faults: ReadonlyMap<number, StoreFault>;
  private readonly handlerRunsByEvent = new Map<string, number>();
  private readonly scopes = INVOCATION_SCOPES;
  private sequential: InvocationScope = { invocation: -1, trace: newTrace(false), dead: false, deadline: Infinity };
  private calls = 0;

  public constructor(private readonly schedule: Schedule) {
    this.faults = new Map(schedule.storeFaults.map(({ call, fault }) => [call, fault]));
  }

  /** The current invocation's: the one whose async context this is, else the sequential one. */
  private get scope(): InvocationScope {
    return this.scopes.getStore() ?? this.sequential;
  }

  /** What the current invocation did so far. */
  public get trace(): InvocationTrace {
    return this.scope.trace;
  }

  /** When the current invocation's time runs out (a Lambda timeout kills it there). */
  public get deadline(): number {
    return this.scope.deadline;
  }

  public set deadline(deadline: number) {
    this.scope.deadline = deadline;
  }

  /** The next invocation of a sequential run starts: a trace of its own, its function alive. */
  public begin(invocation: number): void {
    this.sequential = { invocation, trace: newTrace(this.schedule.dlqOutages.includes(invocation)), dead: false, deadline: Infinity };
  }

  /**
   * Runs `invoke` as invocation `invocation`, beside others that run at once: it has its own trace,
   * deadline and death (its own execution environment), and returns what it did.
   */
  public async during<T>(invocation: number, deadline: number, invoke: () => Promise<T>): Promise<{ readonly result: T; readonly trace: InvocationTrace }> {
    const scope: InvocationScope = { invocation, trace: newTrace(this.schedule.dlqOutages.includes(invocation)), dead: false, deadline };
    const result = await this.scopes.run(scope, invoke);
    return { result, trace: scope.trace };
  }

  /** With a scheduler, waits for it to release this step of the current invocation: where another invocation's steps may come first. */
  private async step(what: string): Promise<void> {
    if (this.scheduler !== undefined) await this.scheduler.schedule(Promise.resolve(), `invocation ${this.scope.invocation}: ${what}`);
  }

  /** The handler of `itemIdentifier` runs for `eventId`: true when this run fails transiently, as scheduled. */
  public handlerRun(itemIdentifier: string, eventId: string, transientFailures: number): boolean {
    this.trace.handlerRuns.push(itemIdentifier);
    const runs = (this.handlerRunsByEvent.get(eventId) ?? 0) + 1;
    this.handlerRunsByEvent.set(eventId, runs);
    return runs <= transientFailures;
  }

  /** The handler of `itemIdentifier` throws `error`. */
  public handlerThrow(itemIdentifier: string, error: Error): Error {
    this.trace.handlerThrows.push(itemIdentifier);
    return error;
  }

  /** The DynamoDB client the runtime gets. */
  public readonly dynamodb = {
    send: async (command: { constructor: { name: string }; input: unknown }): Promise<unknown> => this.dynamoDbCall(command.constructor.name, command.input as Record<string, unknown>),
  };

  /** The SQS client of the DLQ sender and the visibility backoff. */
  public readonly sqs = {
    send: async (command: { constructor: { name: string }; input: unknown }): Promise<unknown> => this.sqsCall(command.constructor.name, command.input as Record<string, unknown>),
  };

  /**
   * One call to the store (a DynamoDB request, or an SQL transaction): fails when the function has
   * died, takes the call's latency on the clock, and returns the fault the schedule puts on it.
   */
  public async storeCall(what = 'store call'): Promise<StoreFault | undefined> {
    await this.roundTrip(what);
    const fault = this.faults.get(this.calls);
    this.calls += 1;
    return fault;
  }

  /** The store calls made so far in the run. */
  public get callsMade(): number {
    return this.calls;
  }

  /** One round trip within a store call (an SQL statement): fails when the function has died, and takes the call's latency. */
  public async roundTrip(what = 'round trip'): Promise<void> {
    await Promise.resolve();
    await this.step(what);
    if (this.scope.dead) throw new Crash();
    this.now += this.schedule.callLatencyMs;
  }

  /** The function dies here: this call and every later one of the invocation fail, and its answer is lost. */
  public crash(): never {
    this.scope.dead = true;
    this.trace.crashed = true;
    throw new Crash();
  }

  /** The event's dedup record went out in a write, whatever became of the write. */
  public noteDedupAttempt(eventId: string): void {
    this.trace.dedupAttempts.add(eventId);
  }

  /** A read of the dedup records hit a fault: the runtime could not tell whether its events applied. */
  public noteFailedRead(): void {
    this.trace.failedReads += 1;
  }

  /** The events' effects committed, in this order. */
  public noteCommitted(eventIds: readonly string[]): void {
    this.trace.applied.push(...eventIds);
    this.appliedLog.push(...eventIds);
  }

  private async dynamoDbCall(name: string, input: Record<string, unknown>): Promise<unknown> {
    const fault = await this.storeCall(name.replace(/Command$/, ''));
    if (name === 'TransactWriteItemsCommand') this.noteDedupAttempts(input.TransactItems as TransactWriteItem[]);
    if (fault !== undefined && name === 'BatchGetItemCommand') this.noteFailedRead();
    if (fault === 'throttle') throw awsError('ProvisionedThroughputExceededException', 400);
    if (fault === 'conflict' && name === 'TransactWriteItemsCommand') throw conflictOn(input.TransactItems as TransactWriteItem[]);
    if (fault === 'crash-before') return this.crash();
    const result = this.execute(name, input);
    if (fault === 'crash-after') return this.crash();
    return result;
  }

  private execute(name: string, input: Record<string, unknown>): unknown {
    switch (name) {
      case 'TransactWriteItemsCommand':
        return this.transactWrite(input.TransactItems as TransactWriteItem[]);
      case 'PutItemCommand':
        return this.putItem(input as TransactWriteItem['Put'] & object);
      case 'BatchGetItemCommand':
        return this.batchGet(input.RequestItems as Record<string, { Keys: Item[] }>);
      case 'GetItemCommand':
        return { Item: this.tables.getItem(String(input.TableName), input.Key as Item) };
      default:
        throw new Error(`the model world has no DynamoDB ${name}`);
    }
  }

  /** A transaction that reached DynamoDB attempted its events, whether it then committed, was cancelled or throttled. */
  private noteDedupAttempts(actions: readonly TransactWriteItem[]): void {
    for (const action of actions) if (action.Put?.TableName === IDEMPOTENCY_TABLE) this.noteDedupAttempt(dedupEventId(action.Put.Item?.id?.S));
  }

  private transactWrite(actions: TransactWriteItem[]): unknown {
    const outcome = this.tables.transactWrite(actions);
    if (!outcome.committed) throw transactionCancelled(outcome.reasons);
    for (const action of actions) this.noteApplied(action.Update?.TableName === EFFECTS_TABLE ? action.Update.Key?.pk?.S : undefined);
    return {};
  }

  private putItem(put: NonNullable<TransactWriteItem['Put']>): unknown {
    if (!this.tables.writeItem({ Put: put })) throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
    this.noteApplied(put.TableName === EFFECTS_TABLE ? put.Item?.pk?.S : undefined);
    return {};
  }

  private noteApplied(pk: string | undefined): void {
    if (pk === undefined || !pk.startsWith(EVENT_ITEM_PREFIX)) return;
    this.noteCommitted([pk.slice(EVENT_ITEM_PREFIX.length)]);
  }

  private batchGet(requests: Record<string, { Keys: Item[] }>): unknown {
    const responses: Record<string, Item[]> = {};
    for (const [table, { Keys }] of Object.entries(requests)) responses[table] = Keys.map((key) => this.tables.getItem(table, key)).filter((item): item is Item => item !== undefined);
    return { Responses: responses, UnprocessedKeys: {} };
  }

  private async sqsCall(name: string, input: Record<string, unknown>): Promise<unknown> {
    await Promise.resolve();
    await this.step(`SQS ${name.replace(/Command$/, '')}`);
    if (this.scope.dead) throw new Crash();
    if (name === 'SendMessageCommand') return this.dlqSend(String(input.MessageBody));
    if (name === 'ChangeMessageVisibilityBatchCommand') return this.changeVisibility(input.Entries as { Id: string; ReceiptHandle: string; VisibilityTimeout: number }[]);
    throw new Error(`the model world has no SQS ${name}`);
  }

  private dlqSend(body: string): unknown {
    if (this.trace.dlqDown) throw awsError('ServiceUnavailable', 503);
    this.trace.dlqSends.push(JSON.parse(body) as FailureEnvelope);
    return { MessageId: `dlq-${this.trace.dlqSends.length}` };
  }

  private changeVisibility(entries: readonly { Id: string; ReceiptHandle: string; VisibilityTimeout: number }[]): unknown {
    const failed = entries.filter((entry) => !this.queue?.changeVisibility(entry.ReceiptHandle, entry.VisibilityTimeout, this.now));
    return { Successful: entries.filter((entry) => !failed.includes(entry)).map(({ Id }) => ({ Id })), Failed: failed.map(({ Id }) => ({ Id, Code: 'ReceiptHandleIsInvalid', SenderFault: true })) };
  }
}

function newTrace(dlqDown: boolean): InvocationTrace {
  return { handlerRuns: [], handlerThrows: [], dedupAttempts: new Set(), applied: [], dlqSends: [], crashed: false, dlqDown, failedReads: 0 };
}

/** `<consumer>#<eventId>` -> `<eventId>`. */
function dedupEventId(id: string | undefined): string {
  return (id ?? '').slice((id ?? '').indexOf('#') + 1);
}

/** Another transaction holds the first action's item (DynamoDB's TransactionConflict). */
function conflictOn(actions: readonly TransactWriteItem[]): TransactionCanceledException {
  return transactionCancelled(actions.map((_, position) => ({ Code: position === 0 ? 'TransactionConflict' : 'None' })));
}
