/**
 * Draining: waiting until every part of a pipeline (mappings, queues) has nothing left to do. The
 * rule is progress, not a budget: the wait goes on for as long as something moves (a delivery, a
 * delete, a queue depth, a stream position), and gives up only after `stallMs` with nothing
 * moving, naming what did not drain. A fixed budget fails a run that is merely slow (a loaded CI
 * machine), and says nothing about where the work is stuck.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** What a driver can watch to tell that a mapping has gone quiet. */
export interface Quiescent {
  isIdle(): boolean;
  readonly lastActivityAt: number;
}

/** How one part of the pipeline stands on one look. */
export interface PartState {
  /** Nothing is left for this part. */
  readonly drained: boolean;
  /** Changes whenever the part moves on: the same value on two looks means no progress between them. */
  readonly progress: string;
  /** What is left, in words, for the error: `12 visible, 3 in flight`. */
  readonly detail: string;
}

/** One thing the drain waits for. */
export interface DrainPart {
  /** Names the part in errors: `queue page-views`, `mapping PageViewCounter (sqs)`. */
  readonly name: string;
  look(): PartState | Promise<PartState>;
}

/** Time as the drain reads it; tests pass a fake one. */
export interface DrainClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The machine's clock. */
export const SYSTEM_CLOCK: DrainClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/** Defaults of {@link UntilDrainedOptions}, named once for the code and its docs. */
export const DRAIN_DEFAULTS = {
  /** Give up after this long with nothing moving. */
  stallMs: 60_000,
  /**
   * Give up after this long however things move. Only a safety net: activity is not progress
   * towards the end when it cycles (a batch that fails and is redelivered for ever, a stream
   * record retried without a retry limit or a maximum age), and a run like that must end with an
   * error rather than hang a CI job. An hour is six times the longest run measured here (50,000
   * events in under ten minutes on a busy 2-core machine).
   */
  maxMs: 60 * 60_000,
  /** How often to look. */
  intervalMs: 250,
} as const;

/** Options of {@link untilDrained}. */
export interface UntilDrainedOptions {
  /** @default DRAIN_DEFAULTS.stallMs */
  readonly stallMs?: number;
  /** @default DRAIN_DEFAULTS.maxMs */
  readonly maxMs?: number;
  /** @default DRAIN_DEFAULTS.intervalMs */
  readonly intervalMs?: number;
  /** @default SYSTEM_CLOCK */
  readonly clock?: DrainClock;
  /** Ends the wait at once, rejecting with the signal's reason (e.g. a function that failed to initialize). */
  readonly signal?: AbortSignal;
}

/** A part that did not drain, and what it holds. */
export interface UndrainedPart {
  readonly name: string;
  readonly detail: string;
}

/** Why a drain gave up: nothing moved for `stallMs`, or the safety cap. */
export type DrainLimit = 'no-progress' | 'safety-cap';

/** Thrown when a drain gives up; the message and `parts` name what did not drain. */
export class DrainStalledError extends Error {
  public constructor(
    public readonly limit: DrainLimit,
    public readonly limitMs: number,
    public readonly parts: readonly UndrainedPart[],
  ) {
    super(`${limitSentence(limit, limitMs)}; not drained: ${parts.map((part) => `${part.name} (${part.detail})`).join('; ')}`);
    this.name = 'DrainStalledError';
  }
}

function limitSentence(limit: DrainLimit, limitMs: number): string {
  const seconds = Math.round(limitMs / 1000);
  if (limit === 'no-progress') return `nothing progressed for ${seconds} s (no delivery, delete, queue depth or stream position changed)`;
  return `not drained within ${seconds} s, the drain's overall limit`;
}

/**
 * Resolves once every part is drained on the same look; rejects with a {@link DrainStalledError}
 * after `stallMs` without any part's progress changing, or after `maxMs` in all.
 *
 * @example
 * await untilDrained([quiescentPart('mapping', mapping, { quietMs: 2_000 }), queuePart], { stallMs: 60_000 });
 */
export async function untilDrained(parts: readonly DrainPart[], options: UntilDrainedOptions = {}): Promise<void> {
  const { stallMs = DRAIN_DEFAULTS.stallMs, maxMs = DRAIN_DEFAULTS.maxMs, intervalMs = DRAIN_DEFAULTS.intervalMs, clock = SYSTEM_CLOCK, signal } = options;
  const started = clock.now();
  const watch = new ProgressWatch(started);
  for (;;) {
    signal?.throwIfAborted();
    const states = await Promise.all(parts.map(async (part) => part.look()));
    if (states.every((state) => state.drained)) return;
    const now = clock.now();
    watch.observe(states.map((state) => state.progress), now);
    const limit = watch.sinceProgress(now) >= stallMs ? 'no-progress' : now - started >= maxMs ? 'safety-cap' : undefined;
    if (limit !== undefined) throw new DrainStalledError(limit, limit === 'no-progress' ? stallMs : maxMs, undrained(parts, states));
    await pause(clock, intervalMs, signal);
  }
}

/** When the progress marks last changed. */
class ProgressWatch {
  private marks: readonly string[] | undefined;

  public constructor(private changedAt: number) {}

  public observe(marks: readonly string[], now: number): void {
    if (this.marks === undefined || marks.some((mark, i) => mark !== this.marks?.[i])) this.changedAt = now;
    this.marks = marks;
  }

  public sinceProgress(now: number): number {
    return now - this.changedAt;
  }
}

function undrained(parts: readonly DrainPart[], states: readonly PartState[]): UndrainedPart[] {
  return parts.flatMap((part, i) => (states[i]?.drained === false ? [{ name: part.name, detail: states[i].detail }] : []));
}

async function pause(clock: DrainClock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await clock.sleep(ms, signal);
  } catch (error) {
    // An aborted sleep rejects with an AbortError: the caller wants the signal's own reason.
    signal?.throwIfAborted();
    throw error;
  }
}

/** Options of {@link quiescentPart}. */
export interface QuiescentPartOptions {
  /** How long the mapping must have been idle, with nothing seen, to count as drained. */
  readonly quietMs: number;
  /** Counters that change when work moves on (deliveries, deletes), added to the progress mark. */
  readonly stats?: () => unknown;
  /** @default SYSTEM_CLOCK */
  readonly clock?: DrainClock;
}

/**
 * A mapping as a drain part: drained once idle with nothing seen for `quietMs` (the sources are
 * empty, or hold only what a visibility timeout will release); it progresses whenever it sees
 * records or finishes a batch.
 */
export function quiescentPart(name: string, mapping: Quiescent, options: QuiescentPartOptions): DrainPart {
  const clock = options.clock ?? SYSTEM_CLOCK;
  return {
    name,
    look: () => {
      const idle = mapping.isIdle();
      const quietFor = clock.now() - mapping.lastActivityAt;
      const detail = idle ? `idle for ${quietFor} ms, drained after ${options.quietMs} ms of quiet` : 'busy: a batch in flight or records waiting';
      const progress = `${mapping.lastActivityAt}:${options.stats ? JSON.stringify(options.stats()) : ''}`;
      return { drained: idle && quietFor >= options.quietMs, progress, detail };
    },
  };
}

/** Options for {@link untilQuiet}. */
export interface UntilQuietOptions {
  /** How long every mapping must have been idle, with nothing seen. */
  readonly quietMs: number;
  /** Give up (throw) after this long. @default 60_000 */
  readonly timeoutMs?: number;
  /** How often to look. @default 50 */
  readonly intervalMs?: number;
}

/**
 * Resolves once every mapping is idle and none has seen anything for `quietMs`: the sources are
 * drained, or stuck on records that only time will release (a visibility timeout). A fixed
 * timeout, for tests of one mapping; a whole stack drains with {@link untilDrained}.
 *
 * @example
 * mapping.start();
 * await untilQuiet([mapping], { quietMs: 2_000 });
 * await mapping.stop();
 */
export async function untilQuiet(mappings: readonly Quiescent[], options: UntilQuietOptions): Promise<void> {
  const { quietMs, timeoutMs = 60_000, intervalMs = 50 } = options;
  const parts = mappings.map((mapping, i) => quiescentPart(`mapping ${i + 1} of ${mappings.length}`, mapping, { quietMs }));
  await untilDrained(parts, { stallMs: Number.POSITIVE_INFINITY, maxMs: timeoutMs, intervalMs });
}
