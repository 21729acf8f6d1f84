/**
 * A demo run that stopped before it could verify anything: a function failed to initialize, the
 * drain stalled, or something else broke. The error carries what the CLI prints (a table, or the
 * JSON with `result: "ABORTED"`), naming the phase, the function and the error.
 */
import { DrainStalledError, type UndrainedPart } from '../event-sources/drain';
import { FunctionInitError, type InitFailure } from '../functions';
import { renderRows } from './report';

export const AbortReason = {
  /** A function could not load or initialize. */
  INIT_FAILURE: 'init-failure',
  /** The drain saw no progress for its stall limit, or hit its safety cap. */
  DRAIN_STALLED: 'drain-stalled',
  /** Anything else (an engine that died, a publish that failed). */
  ERROR: 'error',
} as const;
export type AbortReason = (typeof AbortReason)[keyof typeof AbortReason];

/** What the report of an aborted run says. */
export interface DemoAbort {
  readonly reason: AbortReason;
  /** The phase it stopped in, as the progress output names it. */
  readonly phase: string;
  readonly message: string;
  /** The function that failed to initialize. */
  readonly initFailure?: InitFailure;
  /** What did not drain. */
  readonly undrained?: readonly UndrainedPart[];
  /** Where the dump went (published.jsonl, state.json, functions.log, error.txt). */
  readonly dumpDir?: string;
}

/** Thrown by the demo when it stops early; `abort` is its report. */
export class DemoAbortedError extends Error {
  public constructor(public readonly abort: DemoAbort, options?: { cause?: unknown }) {
    super(`the demo stopped while ${abort.phase}: ${abort.message}`, options);
    this.name = 'DemoAbortedError';
  }
}

/** The abort an error amounts to, in `phase`. */
export function abortOf(error: unknown, phase: string, dumpDir?: string): DemoAbortedError {
  if (error instanceof DemoAbortedError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof FunctionInitError) return new DemoAbortedError({ reason: AbortReason.INIT_FAILURE, phase, message, initFailure: error.failure, dumpDir }, { cause: error });
  if (error instanceof DrainStalledError) return new DemoAbortedError({ reason: AbortReason.DRAIN_STALLED, phase, message, undrained: error.parts, dumpDir }, { cause: error });
  return new DemoAbortedError({ reason: AbortReason.ERROR, phase, message, dumpDir }, { cause: error });
}

/** The JSON of an aborted run: no effects were verified, so there are no counts to give. */
export function abortedReport(error: DemoAbortedError, seed: number): { seed: number; result: 'ABORTED'; aborted: DemoAbort; violations: string[] } {
  return { seed, result: 'ABORTED', aborted: error.abort, violations: [error.message] };
}

/** The summary table of an aborted run. */
export function abortedTable(error: DemoAbortedError, seed: number): string {
  const { abort } = error;
  const failure = abort.initFailure;
  return renderRows([
    ['seed', String(seed)],
    ['stopped while', abort.phase],
    ...(failure ? [['function that failed to initialize', failure.functionName], ['error', `${failure.errorType}: ${failure.errorMessage}`]] as [string, string][] : []),
    ...(abort.undrained ?? []).map((part): [string, string] => [`not drained: ${part.name}`, part.detail]),
    ...(abort.dumpDir ? [['dump', abort.dumpDir]] as [string, string][] : []),
    ['result', `FAIL: ${error.message}`],
  ]);
}
