/**
 * How `eo replay` retries a record its function reports (or a batch the function failed), as the
 * mapping it stands in for retries from the first reported record: again and again, with
 * exponential backoff and full jitter, for as long as the bound allows. A throttle, a crash or a
 * timeout passes within it; a record that is still reported once `retryForMs` has gone by since
 * it was first reported is a failure that persists, and stops its shard, saying which.
 *
 * The bound runs per stuck record: once a later record is the one reported (the function settled
 * what came before it), the count and the clock start again, so a long replay under a steady share
 * of faults goes through, and only a record that makes no progress stops it.
 */
import { fullJitterDelay, realSleep, type RandomSource, type Sleep } from '../../lambdas/runtime/core/backoff';

/** The retry settings of a replay; the defaults are `REPLAY_RETRY_DEFAULTS`. */
export interface ReplayRetryOptions {
  /** The first wait's ceiling; each next one doubles it, up to `maxRetryDelayMs`. @default 500 */
  readonly retryDelayMs?: number;
  /** The largest ceiling of one wait. @default 20000 */
  readonly maxRetryDelayMs?: number;
  /** How long one record may keep coming back reported before its shard stops. @default 300000 (5 minutes) */
  readonly retryForMs?: number;
  /** @default Math.random */
  readonly random?: RandomSource;
  /** @default setTimeout */
  readonly sleep?: Sleep;
  /** @default Date.now */
  readonly now?: () => number;
}

export const REPLAY_RETRY_DEFAULTS = { retryDelayMs: 500, maxRetryDelayMs: 20_000, retryForMs: 5 * 60_000 } as const;

/** What the policy decides for a reported record: wait and send it again, or stop the shard there. */
export type RetryDecision = { readonly retry: true } | { readonly retry: false; readonly reason: string };

/** One shard's retries: the record it is stuck on, since when, and how often it was reported. */
export class ShardRetries {
  private stuckOn?: { readonly sequenceNumber: string; readonly sinceMs: number; reports: number };
  private readonly settings: Required<ReplayRetryOptions>;

  public constructor(options: ReplayRetryOptions = {}) {
    this.settings = {
      retryDelayMs: checkedMs('retryDelayMs', options.retryDelayMs ?? REPLAY_RETRY_DEFAULTS.retryDelayMs),
      maxRetryDelayMs: checkedMs('maxRetryDelayMs', options.maxRetryDelayMs ?? REPLAY_RETRY_DEFAULTS.maxRetryDelayMs),
      retryForMs: checkedMs('retryForMs', options.retryForMs ?? REPLAY_RETRY_DEFAULTS.retryForMs),
      random: options.random ?? Math.random,
      sleep: options.sleep ?? realSleep,
      now: options.now ?? Date.now,
    };
  }

  /** A batch went through with nothing reported: the shard is stuck on nothing. */
  public cleared(): void {
    this.stuckOn = undefined;
  }

  /**
   * The function reported `sequenceNumber` (or failed the batch that starts there) for `reason`:
   * waits and answers retry, or, once the record has been reported for `retryForMs`, answers stop
   * with the reason its shard stopped.
   */
  public async reported(sequenceNumber: string, reason: string): Promise<RetryDecision> {
    const { now, retryForMs } = this.settings;
    if (this.stuckOn?.sequenceNumber !== sequenceNumber) this.stuckOn = { sequenceNumber, sinceMs: now(), reports: 0 };
    const stuck = this.stuckOn;
    stuck.reports += 1;
    const elapsedMs = now() - stuck.sinceMs;
    if (elapsedMs >= retryForMs) {
      const times = stuck.reports === 1 ? 'once' : `${stuck.reports} times in a row`;
      return { retry: false, reason: `${reason}; reported ${times} over ${seconds(elapsedMs)} (the replay retries a record for ${seconds(retryForMs)}: --retry-for): re-run the replay from its time once the cause is gone` };
    }
    const delayMs = fullJitterDelay(stuck.reports - 1, { baseMs: this.settings.retryDelayMs, capMs: this.settings.maxRetryDelayMs, random: this.settings.random });
    // The last wait never runs past the bound: the record gets one more try at its end.
    await this.settings.sleep(Math.min(delayMs, retryForMs - elapsedMs));
    return { retry: true };
  }
}

function checkedMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of milliseconds >= 0 (given ${value})`);
  return value;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
