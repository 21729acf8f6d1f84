/**
 * The time window of a replay: `--from` and `--to` as ISO 8601 times (`2026-12-01T09:00:00Z`) or
 * as a duration back from now (`90m`, `6h`, `2d`). `--to` defaults to now.
 */

/** A window of arrival times, epoch ms: from inclusive, to exclusive. */
export interface ReplayWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Thrown for a time the replay cannot read, or a window that is empty or in the future. */
export class ReplayWindowError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ReplayWindowError';
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `90s`, `5m` or `6h` in ms; undefined when the text is not one. */
function durationMs(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhd])$/.exec(value.trim());
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : undefined;
}

/** `90s`, `5m`, `1h` as ms, for a flag that takes a duration. @throws ReplayWindowError naming the flag */
export function parseDuration(value: string, flag: string): number {
  const ms = durationMs(value);
  if (ms === undefined) throw new ReplayWindowError(`${flag} ${JSON.stringify(value)} is not a duration (90s, 5m, 1h)`);
  return ms;
}

/** `2026-12-01T09:00:00Z` or `6h` (ago) as epoch ms. @throws ReplayWindowError naming the flag */
export function parseReplayTime(value: string, flag: string, nowMs: number): number {
  const ago = durationMs(value);
  if (ago !== undefined) return nowMs - ago;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw new ReplayWindowError(`${flag} ${JSON.stringify(value)} is neither an ISO 8601 time (2026-12-01T09:00:00Z) nor a duration back from now (90m, 6h, 2d)`);
}

/** The window the flags name. @throws ReplayWindowError when it is empty or starts in the future */
export function replayWindow(from: string, to: string | undefined, nowMs: number): ReplayWindow {
  const fromMs = parseReplayTime(from, '--from', nowMs);
  const toMs = to === undefined ? nowMs : parseReplayTime(to, '--to', nowMs);
  if (fromMs >= toMs) throw new ReplayWindowError(`--from (${new Date(fromMs).toISOString()}) must be before --to (${new Date(toMs).toISOString()})`);
  if (fromMs > nowMs) throw new ReplayWindowError(`--from (${new Date(fromMs).toISOString()}) is in the future`);
  return { fromMs, toMs: Math.min(toMs, nowMs) };
}
