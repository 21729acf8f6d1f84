/**
 * The RDS Data API client the `sql` strategy's `DataApiSession` gets in the model: a real
 * `RDSDataClient` to the local Data API gateway (emulator/gateway) on the real PostgreSQL, with the
 * schedule's faults on its calls, every call one store call of the world (its clock, its crashes),
 * and the Data API's expiry of idle transactions on the world's virtual clock.
 *
 * The faults, by Data API call, so that they land in the middle of a transaction as well as at its
 * commit: `crash-before` (the function dies before the call: a transaction it began stays open, its
 * locks held), `crash-after` (the call ran, then the function died: after a commit, the answer is
 * lost), `timeout` (Lambda's timeout: the clock jumps to the deadline, the function dies, its
 * transaction open), `lost-answer` (the call ran and its answer was lost on the way, the function
 * goes on: a lost commit answer at a commit), `conflict` (a real serialization failure, raised by
 * the gateway inside the transaction, which then treats it as any failed statement), `pause` (the
 * cluster pauses: the gateway answers `DatabaseResumingException` for RESUME_MS of virtual time).
 * `throttle` is the only one answered here and not by the gateway, which cannot throttle: a
 * `ServiceUnavailableError`, how the Data API throttles.
 *
 * Time: the gateway's own idle timer is off (its three minutes are real time); the model rolls back a
 * transaction that saw no call for three minutes of the world's clock instead, as the Data API
 * would. A statement blocked on a lock such a transaction holds waits LOCK_WAIT_REAL_MS of real time
 * (the runtime's `lock_timeout` and `statement_timeout`, virtual milliseconds, are swapped for real
 * ones here), and then the world's clock moves by the wait the runtime asked for.
 */
import { RollbackTransactionCommand, ServiceUnavailableError, type RDSDataClient } from '@aws-sdk/client-rds-data';
import { DATA_API_LIMITS } from '../../aws/limits';
import type { StoreFault } from './schedule';
import type { World } from './world';

/** About how long an Aurora Serverless v2 cluster takes to resume from a pause (lambdas/runtime/stores/postgres/errors.ts). */
export const RESUME_MS = 15_000;
/** The real wait of a statement blocked on a lock: an open transaction of the model never ends within it. */
export const LOCK_WAIT_REAL_MS = 25;
/** A statement bound no real statement of the model reaches; the virtual one is the runtime's time budget. */
const STATEMENT_TIMEOUT_REAL_MS = 60_000;
const IDLE_MS = DATA_API_LIMITS.transactionIdleSeconds * 1000;
/** SQL the model itself sends through the client (its read of what a transaction applied): no fault, no clock. */
export const MODEL_STATEMENT_MARK = '/* model */';

interface DataApiInput {
  readonly resourceArn?: string;
  readonly secretArn?: string;
  readonly transactionId?: string;
  readonly sql?: string;
  parameters?: { name?: string; value?: { stringValue?: string } }[];
}

/** A command as the SDK sends it: its class names the operation. */
interface DataApiCommand {
  readonly constructor: { readonly name: string };
  readonly input: unknown;
}

/** The gateway's hooks the faults use: a pause for the next call, a serialization failure in the next statement; `settle` disarms both once the call is answered. */
export interface GatewayHooks {
  pauseNextCall(): void;
  failNextStatement(): void;
  settle(): void;
}

export class ModelDataApiClient {
  /** DataApiSession refuses a client that retries by itself. */
  public readonly config = { maxAttempts: async () => 1 };
  /** Open transactions (as far as the model knows) by id, and the virtual time of their last call. */
  private readonly open = new Map<string, number>();
  private current?: string;
  private pending?: { readonly transactionId: string; readonly applied: readonly string[] };
  private pausedUntil = -Infinity;
  private lockWaitMs = 0;

  public constructor(
    private readonly client: RDSDataClient,
    private readonly world: World,
    private readonly hooks: GatewayHooks,
    /** The cluster and secret of the session's calls. */
    private readonly target: { readonly resourceArn: string; readonly secretArn: string },
    /** The schedule's faults of commits (schedule.ts, `commitFaults`), spent as they hit. */
    private readonly commitFaults: { readonly call: number; readonly fault: StoreFault }[] = [],
  ) {}

  /** The current transaction is about to commit, holding these events' effects: noted applied once its commit lands. */
  public willCommit(applied: readonly string[]): void {
    if (this.current !== undefined) this.pending = { transactionId: this.current, applied };
  }

  /** Rolls back what is still open (at the end of a run: what the Data API's expiry would end). */
  public async expireAll(): Promise<void> {
    for (const transactionId of [...this.open.keys()]) await this.expire(transactionId);
  }

  public async send(command: DataApiCommand): Promise<unknown> {
    const input = command.input as DataApiInput;
    if (input.sql?.startsWith(MODEL_STATEMENT_MARK) === true) return this.client.send(command as never);
    await this.expireIdle();
    const planned = this.commitFault(command.constructor.name);
    const fault = planned ?? (await this.world.storeCall());
    if (planned !== undefined) await this.world.storeCall();
    if (input.transactionId !== undefined && this.open.has(input.transactionId)) this.open.set(input.transactionId, this.world.now);
    if (fault === 'pause') this.pausedUntil = this.world.now + RESUME_MS;
    this.before(fault, command.constructor.name, input);
    const output = await this.forward(command, input);
    if (fault === 'crash-after') return this.world.crash();
    if (fault === 'lost-answer') throw Object.assign(new Error('socket hang up (the answer was lost on its way back; injected)'), { code: 'ECONNRESET' });
    return output;
  }

  /**
   * A commit's own fault: the schedule's commit faults each hit the first commit at or after their
   * call, so that a lost commit answer (or a crash, a timeout, a throttle there) is not left to the
   * one call in several that is a commit. The call still counts as a store call, and takes its time.
   */
  private commitFault(operation: string): StoreFault | undefined {
    if (operation !== 'CommitTransactionCommand') return undefined;
    const due = this.commitFaults.findIndex((planned) => planned.call <= this.world.callsMade);
    if (due === -1) return undefined;
    return this.commitFaults.splice(due, 1)[0]?.fault;
  }

  /** What the fault does before the call goes out. */
  private before(fault: StoreFault | undefined, operation: string, input: DataApiInput): void {
    if (fault === 'throttle') throw new ServiceUnavailableError({ message: 'Service Unavailable (injected throttling)', $metadata: { httpStatusCode: 503 } });
    if (fault === 'crash-before') this.world.crash();
    if (fault === 'timeout') {
      this.world.now = Math.max(this.world.now, this.world.deadline);
      this.world.crash();
    }
    if (fault === 'conflict' && input.transactionId !== undefined && /ExecuteStatement/.test(operation)) this.hooks.failNextStatement();
    if (this.world.now < this.pausedUntil) this.hooks.pauseNextCall();
    this.swapTimeouts(input);
  }

  private async forward(command: DataApiCommand, input: DataApiInput): Promise<unknown> {
    const operation = command.constructor.name;
    try {
      const output = (await this.client.send(command as never)) as { transactionId?: string };
      this.track(operation, input, output.transactionId);
      return output;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (/^(Commit|Rollback)Transaction/.test(operation) && name === 'TransactionNotFoundException') this.open.delete(input.transactionId ?? '');
      if (/SQLState: 55P03/.test(String((error as Error).message))) this.world.now += this.lockWaitMs;
      throw error;
    } finally {
      this.hooks.settle();
    }
  }

  /** A call that went through: a transaction begun, committed (its events applied) or rolled back. */
  private track(operation: string, input: DataApiInput, begun: string | undefined): void {
    if (operation === 'BeginTransactionCommand' && begun !== undefined) {
      this.open.set(begun, this.world.now);
      this.current = begun;
      this.pending = undefined;
    }
    if (operation === 'CommitTransactionCommand' || operation === 'RollbackTransactionCommand') this.open.delete(input.transactionId ?? '');
    const pending = this.pending;
    if (operation === 'CommitTransactionCommand' && pending !== undefined && pending.transactionId === input.transactionId) this.world.noteCommitted(pending.applied);
  }

  /** The runtime's bounds (virtual milliseconds) as real ones; the lock wait it asked for is kept for the clock. */
  private swapTimeouts(input: DataApiInput): void {
    const text = input.sql ?? '';
    const swap = (setting: string, real: number): number | undefined => {
      const name = new RegExp(`set_config\\('${setting}', :(\\w+)`).exec(text)?.[1];
      const parameter = input.parameters?.find((candidate) => candidate.name === name);
      if (parameter?.value?.stringValue === undefined) return undefined;
      const asked = Number(parameter.value.stringValue);
      parameter.value = { stringValue: String(real) };
      return asked;
    };
    swap('statement_timeout', STATEMENT_TIMEOUT_REAL_MS);
    this.lockWaitMs = swap('lock_timeout', LOCK_WAIT_REAL_MS) ?? this.lockWaitMs;
  }

  /** The Data API's expiry: a transaction with no call for three minutes of the world's clock is rolled back. */
  private async expireIdle(): Promise<void> {
    for (const [transactionId, lastCall] of [...this.open]) if (this.world.now - lastCall >= IDLE_MS) await this.expire(transactionId);
  }

  private async expire(transactionId: string): Promise<void> {
    this.open.delete(transactionId);
    const { resourceArn, secretArn } = this.target;
    await this.client.send(new RollbackTransactionCommand({ resourceArn, secretArn, transactionId })).catch(() => undefined);
  }
}
