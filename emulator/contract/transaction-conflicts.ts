/**
 * DynamoDB's transaction conflicts, which DynamoDB Local never raises (it serialises requests):
 * a stateful model the proxy consults when a request arrives (`begin`) and when the engine's
 * answer returns (`end`). Per the Developer Guide ("Transaction conflict handling in DynamoDB",
 * "Pessimistic locking with DynamoDB transactions") and the API Reference (TransactWriteItems,
 * TransactGetItems, TransactionInProgressException):
 * - a TransactWriteItems touching an item that another TransactWriteItems or a plain write
 *   (PutItem, UpdateItem, DeleteItem, BatchWriteItem) holds is cancelled:
 *   `TransactionCanceledException`, `TransactionConflict` at that action's index, `None` elsewhere;
 * - a PutItem, UpdateItem or DeleteItem on an item a TransactWriteItems holds fails with
 *   `TransactionConflictException`;
 * - a TransactGetItems touching an item any write holds is cancelled the same way;
 * - a TransactWriteItems whose `ClientRequestToken` is held by a TransactWriteItems still in
 *   flight fails with `TransactionInProgressException`, not with a conflict with itself.
 * An item is held from the moment the proxy admits the request (`begin`) until DynamoDB Local has
 * answered it or the exchange failed (`end`). Plain writes never conflict with each other, a
 * BatchWriteItem is never refused here (AWS documents no conflict error for it), and reads other
 * than TransactGetItems neither hold nor conflict.
 */
import type { AwsError } from './aws-error';
import { accessOf, type ItemAccess, type KeySchemas } from './dynamodb-access';
import { NO_REASON, TRANSACTION_CONFLICT_REASON, transactionCanceled, transactionConflict, transactionInProgress } from './dynamodb-errors';

export const CONFLICT_RULES = {
  transaction: 'dynamodb.transaction-conflict.transact-write',
  write: 'dynamodb.transaction-conflict.write',
  read: 'dynamodb.transaction-conflict.transact-get',
  inProgress: 'dynamodb.transaction-in-progress',
} as const;

/** What `begin` decided: admitted with a ticket to `end`, or refused as AWS would. */
export type ConflictDecision = { readonly ok: true; readonly ticket: ConflictTicket } | { readonly ok: false; readonly error: AwsError };

/** An admitted request's hold on its items; give it back to `end` once the engine answered. */
export interface ConflictTicket {
  readonly id: number;
}

/** Counts since the tracker was made. */
export interface ConflictStats {
  readonly admitted: number;
  readonly transactionsCancelled: number;
  readonly writesRejected: number;
  readonly readsCancelled: number;
  readonly inProgressRejected: number;
}

/** Options of `TransactionConflictTracker`. */
export interface ConflictTrackerOptions {
  /** Key attribute names by table, to know a `Put`'s item. @default {} (a Put's item is then unknown) */
  readonly keySchemas?: KeySchemas;
}

interface Holders {
  transactions: number;
  writes: number;
}

interface Hold {
  readonly access: ItemAccess;
  readonly holds: boolean;
}

/**
 * Which items are in flight, and the conflicts they cause.
 *
 * @example
 * const tracker = new TransactionConflictTracker({ keySchemas: { counters: ['pk'] } });
 * const decision = tracker.begin('TransactWriteItems', input);
 * if (!decision.ok) return send(renderError('json10', decision.error));
 * try { return await forward(); } finally { tracker.end(decision.ticket); }
 */
export class TransactionConflictTracker {
  private readonly schemas: KeySchemas;
  private readonly items = new Map<string, Holders>();
  private readonly tokens = new Map<string, number>();
  private readonly tickets = new Map<number, Hold>();
  private nextTicket = 1;
  private counts = { admitted: 0, transactionsCancelled: 0, writesRejected: 0, readsCancelled: 0, inProgressRejected: 0 };

  constructor(options: ConflictTrackerOptions = {}) {
    this.schemas = options.keySchemas ?? {};
  }

  /** Decides a request on arrival; an admitted one holds its items until `end`. */
  begin(operation: string, input: Readonly<Record<string, unknown>>): ConflictDecision {
    const access = accessOf(operation, input, this.schemas);
    const error = this.refusal(access);
    if (error !== undefined) return { ok: false, error };
    return { ok: true, ticket: this.admit(access) };
  }

  /** Releases an admitted request's items; a second call with the same ticket does nothing. */
  end(ticket: ConflictTicket): void {
    const hold = this.tickets.get(ticket.id);
    if (hold === undefined) return;
    this.tickets.delete(ticket.id);
    if (hold.holds) this.release(hold.access);
  }

  /** Counts of admitted and refused requests since the tracker was made. */
  stats(): ConflictStats {
    return { ...this.counts };
  }

  /** How many distinct items are held now. */
  inFlightItems(): number {
    return this.items.size;
  }

  private refusal(access: ItemAccess): AwsError | undefined {
    switch (access.kind) {
      case 'transaction':
        return this.transactionRefusal(access);
      case 'write':
        return this.writeRefusal(access);
      case 'transact-read':
        return this.cancelIfHeld(access, CONFLICT_RULES.read, 'readsCancelled');
      default:
        return undefined;
    }
  }

  private transactionRefusal(access: ItemAccess): AwsError | undefined {
    if (access.token !== undefined && this.tokens.has(access.token)) {
      this.counts.inProgressRejected += 1;
      return transactionInProgress(CONFLICT_RULES.inProgress);
    }
    return this.cancelIfHeld(access, CONFLICT_RULES.transaction, 'transactionsCancelled');
  }

  private writeRefusal(access: ItemAccess): AwsError | undefined {
    if (!access.items.some((item) => (this.holders(item)?.transactions ?? 0) > 0)) return undefined;
    this.counts.writesRejected += 1;
    return transactionConflict(CONFLICT_RULES.write);
  }

  /** A cancellation with `TransactionConflict` at each held action, or undefined when none is held. */
  private cancelIfHeld(access: ItemAccess, rule: string, counter: 'transactionsCancelled' | 'readsCancelled'): AwsError | undefined {
    const reasons = access.items.map((item) => (this.isHeld(item) ? TRANSACTION_CONFLICT_REASON : NO_REASON));
    if (!reasons.includes(TRANSACTION_CONFLICT_REASON)) return undefined;
    this.counts[counter] += 1;
    return transactionCanceled(rule, reasons);
  }

  private isHeld(item: string | undefined): boolean {
    const holders = this.holders(item);
    return holders !== undefined && holders.transactions + holders.writes > 0;
  }

  private holders(item: string | undefined): Holders | undefined {
    return item === undefined ? undefined : this.items.get(item);
  }

  private admit(access: ItemAccess): ConflictTicket {
    const ticket = { id: this.nextTicket++ };
    const holds = access.kind === 'transaction' || access.kind === 'write' || access.kind === 'batch-write';
    this.tickets.set(ticket.id, { access, holds });
    this.counts.admitted += 1;
    if (holds) this.hold(access);
    return ticket;
  }

  private hold(access: ItemAccess): void {
    const field = access.kind === 'transaction' ? 'transactions' : 'writes';
    for (const item of distinct(access.items)) {
      const holders = this.items.get(item) ?? { transactions: 0, writes: 0 };
      holders[field] += 1;
      this.items.set(item, holders);
    }
    if (access.token !== undefined) this.tokens.set(access.token, (this.tokens.get(access.token) ?? 0) + 1);
  }

  private release(access: ItemAccess): void {
    const field = access.kind === 'transaction' ? 'transactions' : 'writes';
    for (const item of distinct(access.items)) {
      const holders = this.items.get(item);
      if (holders === undefined) continue;
      holders[field] -= 1;
      if (holders.transactions + holders.writes === 0) this.items.delete(item);
    }
    if (access.token !== undefined) this.releaseToken(access.token);
  }

  private releaseToken(token: string): void {
    const count = (this.tokens.get(token) ?? 1) - 1;
    if (count > 0) this.tokens.set(token, count);
    else this.tokens.delete(token);
  }
}

function distinct(items: readonly (string | undefined)[]): string[] {
  return [...new Set(items.filter((item): item is string => item !== undefined))];
}
