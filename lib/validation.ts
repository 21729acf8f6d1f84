import { Duration, Token } from 'aws-cdk-lib';

/*
 * Props checks shared by the constructs. Each throws with the prop's name, the allowed range and
 * the given value. Unresolved tokens pass: their values are only known at deploy time.
 */

/**
 * Throws unless `value` is an integer in `min..max`.
 * @param condition why the range is what it is, when it is not the service's own limit
 */
export function checkIntegerRange(
  name: string,
  value: number | undefined,
  min: number,
  max: number,
  condition = '',
): void {
  if (value === undefined || Token.isUnresolved(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be ${min}..${max}${suffix(condition)} (given ${value})`);
  }
}

/** Throws unless `value` lies in `min..max`. */
export function checkDurationRange(name: string, value: Duration | undefined, min: Duration, max: Duration): void {
  if (value === undefined || value.isUnresolved()) return;
  const ms = value.toMilliseconds();
  if (ms < min.toMilliseconds() || ms > max.toMilliseconds()) {
    const range = `${formatDuration(min)}..${formatDuration(max)}`;
    throw new Error(`${name} must be ${range} (given ${formatDuration(value)})`);
  }
}

const UNITS: readonly [string, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
  ['milli', 1],
];

/**
 * Every non-zero unit of a duration, e.g. "18 days 23 hours 59 minutes 59 seconds".
 * (`Duration.toHumanString()` stops at two units, which can hide why a value was refused.)
 */
export function formatDuration(duration: Duration): string {
  let rest = duration.toMilliseconds();
  const parts: string[] = [];
  for (const [unit, ms] of UNITS) {
    const amount = Math.floor(rest / ms);
    rest -= amount * ms;
    if (amount > 0) parts.push(`${amount} ${unit}${amount === 1 ? '' : 's'}`);
  }
  return parts.length > 0 ? parts.join(' ') : '0 seconds';
}

/** Returns a computed default, or throws when a token in its inputs made it impossible to compute. */
export function defaultOrThrow<T>(name: string, value: T | undefined, inputs: string): T {
  if (value === undefined) throw new Error(`${name} must be given when ${inputs} is a token`);
  return value;
}

function suffix(condition: string): string {
  return condition ? ` ${condition}` : '';
}

/** Throws unless the whole of `value` matches `pattern`. */
export function checkPattern(name: string, value: string | undefined, pattern: RegExp): void {
  if (value === undefined || Token.isUnresolved(value)) return;
  if (!pattern.test(value)) {
    throw new Error(`${name} must match ${pattern} (given "${value}")`);
  }
}

/** Adds durations; `undefined` when any of them is an unresolved token. */
export function sumDurations(durations: readonly Duration[]): Duration | undefined {
  if (durations.some((d) => d.isUnresolved())) return undefined;
  return Duration.millis(durations.reduce((total, d) => total + d.toMilliseconds(), 0));
}

/** The ways an event can come back after it was first processed. */
export interface DedupWindowTerms {
  /** How long the source keeps the event; a redriven copy gets it afresh. */
  readonly sourceRetention: Duration;
  /** How long the DLQ keeps it. */
  readonly dlqRetention: Duration;
  /** How long a redrive out of the DLQ may take. */
  readonly redriveAllowance: Duration;
}

/**
 * The shortest dedup TTL that outlives every copy of an event that one redrive can bring back:
 * 2 x source retention + DLQ retention + redrive allowance. The timeline, for an event whose first
 * copy is sent (or enters the stream) at t0:
 *
 * - The earliest a dedup record can be written is t0 (a copy processed at once), so the earliest
 *   it can expire is t0 + dedupTtl. A record written later expires later: t0 is the worst case.
 * - Another copy of the event (a duplicate delivery; a redelivery after the function died between
 *   its commit and its batch response) stays in the source until t0 + source retention, and can
 *   fail into the DLQ until then.
 * - The DLQ keeps it for DLQ retention from then, at the latest (SQS keeps a standard queue's
 *   enqueue timestamp when it moves a message, so its DLQ retention runs from t0; the runtime's own
 *   DLQ messages and a FIFO queue's moves start it afresh): until t0 + source + DLQ retention.
 * - A redrive may take the allowance: the copy is republished by t0 + source + DLQ retention +
 *   allowance.
 * - The republished copy is a new message (a new Kinesis record; a new stream record of the
 *   touched item) with a source retention of its own: it can still be processed until
 *   t0 + 2 x source retention + DLQ retention + allowance. That is the latest time, and the TTL.
 *
 * A redriven copy that fails again goes back to the DLQ: each further cycle adds a DLQ retention,
 * an allowance and a source retention, without bound, so no TTL covers them all. `eo dlq redrive`
 * covers them instead: per message it holds back a copy that could be processed after the dedup
 * record of the event's earliest copy expired (docs/operations.md, "Within the dedup window").
 */
export function minimumDedupTtl(terms: DedupWindowTerms): Duration | undefined {
  return sumDurations([terms.sourceRetention, terms.dlqRetention, terms.redriveAllowance, terms.sourceRetention]);
}

/**
 * Throws when dedup records would expire while a copy of the event can still be delivered: such a
 * copy would find no record and be processed twice ({@link minimumDedupTtl} has the timeline).
 */
export function checkDedupTtl(dedupTtl: Duration | undefined, terms: DedupWindowTerms): void {
  const minimum = minimumDedupTtl(terms);
  if (dedupTtl === undefined || dedupTtl.isUnresolved() || minimum === undefined) return;
  if (dedupTtl.toMilliseconds() < minimum.toMilliseconds()) {
    throw new Error(
      `dedupTtl must be at least source retention (${formatDuration(terms.sourceRetention)}) ` +
        `+ DLQ retention (${formatDuration(terms.dlqRetention)}) ` +
        `+ redriveAllowance (${formatDuration(terms.redriveAllowance)}) ` +
        `+ the redriven copy's source retention (${formatDuration(terms.sourceRetention)}) = ${formatDuration(minimum)} ` +
        `(given ${formatDuration(dedupTtl)}); a copy that fails again after its redrive is held back by \`eo dlq redrive\` instead`,
    );
  }
}
