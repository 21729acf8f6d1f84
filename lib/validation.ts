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
  /** How long the source keeps the event. */
  readonly sourceRetention: Duration;
  /** How long the DLQ keeps it. */
  readonly dlqRetention: Duration;
  /** How long a redrive out of the DLQ may take. */
  readonly redriveAllowance: Duration;
}

/** The shortest dedup TTL that outlives every way the event can come back. */
export function minimumDedupTtl(terms: DedupWindowTerms): Duration | undefined {
  return sumDurations([terms.sourceRetention, terms.dlqRetention, terms.redriveAllowance]);
}

/**
 * Throws when dedup records would expire while the event can still be delivered again: such a
 * duplicate would find no record and be processed twice.
 */
export function checkDedupTtl(dedupTtl: Duration | undefined, terms: DedupWindowTerms): void {
  const minimum = minimumDedupTtl(terms);
  if (dedupTtl === undefined || dedupTtl.isUnresolved() || minimum === undefined) return;
  if (dedupTtl.toMilliseconds() < minimum.toMilliseconds()) {
    throw new Error(
      `dedupTtl must be at least source retention (${formatDuration(terms.sourceRetention)}) ` +
        `+ DLQ retention (${formatDuration(terms.dlqRetention)}) ` +
        `+ redriveAllowance (${formatDuration(terms.redriveAllowance)}) = ${formatDuration(minimum)} ` +
        `(given ${formatDuration(dedupTtl)})`,
    );
  }
}
