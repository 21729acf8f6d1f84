/**
 * Sending a publish's entries in requests, and resending those a request did not accept, without
 * letting an entry be accepted before an earlier one of its order key ({@link PendingEntries}).
 */
import { fullJitterDelay, realSleep, DEFAULT_BACKOFF, type RetryOptions } from '../core/backoff';
import { classifyError } from '../core/classify';
import { FailureKind, PublishError } from '../core/errors';
import { PendingEntries } from './pending-entries';

/** Default attempts for a publish: retries resend only the entries that failed. */
export const DEFAULT_PUBLISH_ATTEMPTS = 5;

/** How a publish's entries go into requests. */
export interface RequestPlan<TEntry> {
  /**
   * The key within which entries must be accepted in publish order (a FIFO message group, a
   * partition key); `undefined` for an entry that keeps no order.
   * @default - no entry keeps an order
   */
  readonly orderKeyOf?: (entry: TEntry) => string | undefined;
  /** Entries in one request at most. @default - all of them */
  readonly maxPerRequest?: number;
}

/**
 * Sends the entries, then resends whatever `send` returns as not accepted (the same objects), with
 * full-jitter backoff; returns how many resends it made. A request is the longest run of entries
 * not yet accepted, in publish order, that holds no order key twice: a refused entry goes first in
 * the next one, and no entry is accepted before an earlier one of its key.
 *
 * @throws PublishError once an entry has failed `maxAttempts` times, naming every entry not
 * accepted (that one, the rest of its key, which were never sent, and any others not yet accepted)
 * @throws the request's own error when it fails permanently, or transiently on an entry's last attempt
 */
export async function sendUntilAccepted<TEntry extends { Id?: string }>(
  entries: readonly TEntry[],
  retry: RetryOptions,
  send: (pending: readonly TEntry[]) => Promise<readonly TEntry[]>,
  plan: RequestPlan<TEntry> = {},
): Promise<number> {
  const maxAttempts = retry.maxAttempts ?? DEFAULT_PUBLISH_ATTEMPTS;
  const pending = new PendingEntries(entries.map((entry) => plan.orderKeyOf?.(entry)));
  const failures = entries.map(() => 0);
  let resent = 0;
  while (!pending.isEmpty) {
    const request = pending.next(plan.maxPerRequest ?? entries.length);
    resent += await backOffBeforeResends(request.map((position) => failures[position] ?? 0), retry);
    const lastAttempt = request.some((position) => (failures[position] ?? 0) + 1 >= maxAttempts);
    const refused = await refusedOf(request, entries, send, lastAttempt);
    refused.forEach((position) => (failures[position] = (failures[position] ?? 0) + 1));
    pending.settle(request, refused);
    const failing = request.filter((position) => (failures[position] ?? 0) >= maxAttempts);
    if (failing.length > 0) throw exhausted(failing.length, pending, entries, maxAttempts);
  }
  return resent;
}

/** Sends the entries at `request`; returns the positions of those not accepted. */
async function refusedOf<TEntry>(request: readonly number[], entries: readonly TEntry[], send: (pending: readonly TEntry[]) => Promise<readonly TEntry[]>, lastAttempt: boolean): Promise<number[]> {
  const notAccepted = new Set(await sendOrKeep(request.map((position) => entries[position] as TEntry), send, lastAttempt));
  return request.filter((position) => notAccepted.has(entries[position] as TEntry));
}

/** Waits, before a request that resends entries, as long as its most-failed entry calls for; returns how many it resends. */
async function backOffBeforeResends(failuresOfRequest: readonly number[], retry: RetryOptions): Promise<number> {
  const mostFailures = Math.max(0, ...failuresOfRequest);
  if (mostFailures === 0) return 0;
  const { sleep = realSleep, baseMs = DEFAULT_BACKOFF.baseMs, capMs, random } = retry;
  await sleep(fullJitterDelay(mostFailures - 1, { baseMs, capMs, random }));
  return failuresOfRequest.filter((count) => count > 0).length;
}

function exhausted<TEntry extends { Id?: string }>(failing: number, pending: PendingEntries, entries: readonly TEntry[], maxAttempts: number): PublishError {
  const notAccepted = pending.remaining().map((position) => entries[position]?.Id ?? '');
  return new PublishError(`${failing} entries still failing after ${maxAttempts} attempts; ${notAccepted.length} not accepted in all (the others held back behind them, or not yet sent)`, notAccepted);
}

/** A whole request that fails transiently keeps all its entries pending; a permanent failure, or the last attempt's, is thrown. */
async function sendOrKeep<TEntry>(pending: readonly TEntry[], send: (pending: readonly TEntry[]) => Promise<readonly TEntry[]>, last: boolean): Promise<readonly TEntry[]> {
  try {
    return await send(pending);
  } catch (error) {
    if (last || classifyError(error) === FailureKind.PERMANENT) throw error;
    return pending;
  }
}
