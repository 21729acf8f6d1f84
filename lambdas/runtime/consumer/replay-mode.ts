/**
 * A replay invocation: `eo replay` invokes a consumer's own function with records its stream still
 * holds, and marks the call in Lambda's client context (the Invoke API's `ClientContext`, which
 * the function reads as `context.clientContext`; an event source mapping never sets it). In a
 * replay the consumer applies what is new as always, but sends nothing to its DLQ: a permanent
 * failure was dead-lettered when the record first came, and a replay must send nothing for a
 * window already applied. It answers with what each record came to, beside the partial batch
 * response, so that the replay can say how many were duplicates, older versions, applied or failed.
 */
import type { Context } from 'aws-lambda';
import type { Outcome } from './strategy';

/** The `Custom` key and value of the client context that marks a replay. */
export const REPLAY_CONTEXT_KEY = 'effectively-once';
export const REPLAY_CONTEXT_VALUE = 'replay';

/** The client context `eo replay` invokes with, as the Invoke API takes it (JSON, before base64). */
export const REPLAY_CLIENT_CONTEXT = { Custom: { [REPLAY_CONTEXT_KEY]: REPLAY_CONTEXT_VALUE } } as const;

/** What the records of one replayed batch came to. */
export interface ReplayCounts {
  readonly records: number;
  /** New to the consumer (a generation's first fill, or events a bug had skipped): applied now. */
  readonly applied: number;
  /** Applied before: their dedup record exists. */
  readonly duplicates: number;
  /** Not newer than what is stored (a versioned upsert), or skipped by the handler. */
  readonly skipped: number;
  /** Failed for good (a poison record): not sent to the DLQ again. */
  readonly permanent: number;
  /** Failed for now (a throttle, a timeout), or not attempted after one: reported, as to the mapping. */
  readonly reported: number;
}

/** Whether Lambda's client context marks this invocation a replay. */
export function isReplayInvocation(context: Context | undefined): boolean {
  const custom = (context?.clientContext as { Custom?: Record<string, unknown> } | undefined)?.Custom;
  return custom?.[REPLAY_CONTEXT_KEY] === REPLAY_CONTEXT_VALUE;
}

/** Counts a batch's outcomes; `reported` is whether each record is in the partial batch response. */
export function replayCounts(results: readonly { readonly outcome: Outcome; readonly reported: boolean }[]): ReplayCounts {
  const counts = { records: results.length, applied: 0, duplicates: 0, skipped: 0, permanent: 0, reported: 0 };
  for (const { outcome, reported } of results) {
    if (reported) counts.reported += 1;
    else if (outcome.status === 'applied') counts.applied += 1;
    else if (outcome.status === 'duplicate') counts.duplicates += 1;
    else if (outcome.status === 'skipped') counts.skipped += 1;
    else counts.permanent += 1;
  }
  return counts;
}
