import type { Context } from 'aws-lambda';

/**
 * How much of an invocation the runtime keeps back from new work: a share of the time the
 * invocation had when it started, bounded below and above, and never more than half of it. The
 * margin pays for what must still happen after the last event's work: the DLQ sends, the SQS
 * visibility changes and the response, and an SDK call that was already in flight.
 */
export const DEFAULT_TIME_BUDGET = {
  marginShare: 0.1,
  minMarginMs: 1_000,
  maxMarginMs: 10_000,
} as const;

/** How much of an invocation's remaining time is kept back: new work stops when only the margin is left. */
export interface TimeBudgetOptions {
  /** A fixed margin in ms, instead of the share. @default - the share of the starting time, bounded */
  readonly marginMs?: number;
  /** @default 0.1 (`DEFAULT_TIME_BUDGET.marginShare`) */
  readonly marginShare?: number;
  /** @default 1000 (`DEFAULT_TIME_BUDGET.minMarginMs`) */
  readonly minMarginMs?: number;
  /** @default 10000 (`DEFAULT_TIME_BUDGET.maxMarginMs`) */
  readonly maxMarginMs?: number;
}

/** What is left of an invocation for new work. */
export interface TimeBudget {
  /** Milliseconds until new work must stop (the margin already taken off); never negative. */
  remainingMs(): number;
  /** True once no new work may start. */
  exhausted(): boolean;
}

/** No deadline: for calls without a Lambda context (tests, scripts). */
export const UNLIMITED_TIME: TimeBudget = {
  remainingMs: () => Number.POSITIVE_INFINITY,
  exhausted: () => false,
};

/**
 * The budget of one invocation, read from `context.getRemainingTimeInMillis()`: work may start
 * until only the margin is left. Without a context (or with a context whose clock says nothing)
 * there is no deadline.
 *
 * @example
 * const budget = timeBudgetOf(context); // 30 s function: new work stops with 3 s left
 * if (budget.exhausted()) return notAttempted();
 */
export function timeBudgetOf(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined, options: TimeBudgetOptions = {}, now: () => number = Date.now): TimeBudget {
  const startingMs = remainingMsOf(context);
  if (startingMs === undefined) return UNLIMITED_TIME;
  const stopAt = now() + startingMs - marginFor(startingMs, options);
  const remainingMs = (): number => Math.max(0, stopAt - now());
  return { remainingMs, exhausted: () => remainingMs() <= 0 };
}

/**
 * The invocation's remaining time in ms, or undefined when there is no context or its clock says
 * nothing usable (no clock, not a finite number, or no time left: a context that outlived its
 * invocation, or a test's stand-in).
 */
export function remainingMsOf(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): number | undefined {
  const remainingMs = context?.getRemainingTimeInMillis?.();
  return typeof remainingMs === 'number' && Number.isFinite(remainingMs) && remainingMs > 0 ? remainingMs : undefined;
}

/**
 * A signal that aborts at the invocation's deadline, for handlers to pass to what can stop (on
 * Lambda Managed Instances a timeout does not stop the code). A context whose clock reads no
 * number gives one that never aborts; one whose time is up, one that aborts at once. Its timer
 * does not keep the process alive.
 */
export function deadlineSignal(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): AbortSignal {
  const remainingMs = context?.getRemainingTimeInMillis?.();
  if (typeof remainingMs !== 'number' || !Number.isFinite(remainingMs)) return new AbortController().signal;
  return AbortSignal.timeout(Math.max(0, Math.floor(remainingMs)));
}

/** @throws RangeError naming the option and its value, for a margin that is not a duration or a share that is not one */
export function checkTimeBudgetOptions(options: TimeBudgetOptions): void {
  for (const name of ['marginMs', 'minMarginMs', 'maxMarginMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`timeBudget.${name} must be a number of ms >= 0 (given ${value})`);
  }
  const share = options.marginShare;
  if (share !== undefined && !(share >= 0 && share < 1)) throw new RangeError(`timeBudget.marginShare must be in [0, 1) (given ${share})`);
}

/** The margin of an invocation that started with `startingMs` left. */
export function marginFor(startingMs: number, options: TimeBudgetOptions = {}): number {
  if (options.marginMs !== undefined) return Math.min(options.marginMs, startingMs);
  const { marginShare = DEFAULT_TIME_BUDGET.marginShare, minMarginMs = DEFAULT_TIME_BUDGET.minMarginMs, maxMarginMs = DEFAULT_TIME_BUDGET.maxMarginMs } = options;
  const bounded = Math.min(maxMarginMs, Math.max(minMarginMs, startingMs * marginShare));
  return Math.min(bounded, startingMs / 2);
}

/**
 * Paces units of work (an event's handler, a transaction) against a budget: a unit starts only
 * while the time left before the margin covers the slowest unit so far, so that a slow stretch
 * (throttling, a struggling dependency) stops the batch early instead of running into the
 * function's timeout, where Lambda would kill a unit half done.
 */
export class WorkPace {
  private slowestMs = 0;

  public constructor(
    private readonly budget: TimeBudget,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when another unit may start. */
  public canStart(): boolean {
    const remainingMs = this.budget.remainingMs();
    return remainingMs > 0 && remainingMs >= this.slowestMs;
  }

  /** Milliseconds left before the margin, for the error that reports a unit not started. */
  public remainingMs(): number {
    return this.budget.remainingMs();
  }

  /** Runs one unit, timing it. */
  public async time<T>(unit: () => Promise<T>): Promise<T> {
    const startedAt = this.now();
    try {
      return await unit();
    } finally {
      this.slowestMs = Math.max(this.slowestMs, this.now() - startedAt);
    }
  }
}
