/**
 * The targets, checked against a report: measured side by side in one run, under the AWS
 * latency profile when the run had one (the figures on the bare engine measure this machine more
 * than the design). A target the run could not check (a strategy or part left out) is `unchecked`,
 * never met.
 */
import type { CrashWindowRow } from './crash-window';
import type { ProfileReport, ProfileStrategy } from './profiles';
import type { BenchmarkReport } from './run';

export type TargetVerdict = 'met' | 'missed' | 'unchecked';

export interface Target {
  /** What is compared, in words. */
  readonly name: string;
  /** The measured figure (a ratio, a count); null when unchecked. */
  readonly measured: number | null;
  /** The bound it must stay at or under (`atMost`) or reach (`atLeast`). */
  readonly bound: { readonly atMost: number } | { readonly atLeast: number };
  readonly verdict: TargetVerdict;
}

/** Every target, in the order, under `profile` (the run's last profile by default). */
export function checkTargets(report: Pick<BenchmarkReport, 'profiles' | 'crashWindow' | 'coldStart'>, profile: ProfileReport | undefined = report.profiles.at(-1)): Target[] {
  const strategy = (name: string): ProfileStrategy | undefined => profile?.strategies.find((row) => row.name === name);
  const batch = strategy('batch');
  const peer = strategy('powertools');
  const direct = strategy('direct');
  const ratio = (a: number | undefined, b: number | undefined): number | null => (a === undefined || b === undefined || b === 0 ? null : a / b);
  const batchCold = report.coldStart.find((row) => row.handler === 'batch' && row.sdk === 'bundled');
  return [
    atLeast('batch events per second per invocation over the peer\'s', ratio(batch?.eventsPerSecond, peer?.eventsPerSecond), 2),
    atMost('batch dollars per million events over the peer\'s', ratio(batch?.dollarsPerMillionEvents, peer?.dollarsPerMillionEvents), 0.8),
    atMost('batch write units per event over the workload\'s floor', ratio(batch?.writeUnitsPerEvent, profile?.writeUnitFloorPerEvent), 1.1),
    atLeast('batch counts exactly (1: yes)', batch === undefined ? null : Number(batch.exact), 1),
    atMost('direct time per batch over the peer\'s', ratio(peer?.eventsPerSecond, direct?.eventsPerSecond), 1.2),
    atMost('batch effects applied twice in the crash window', appliedTwice(report.crashWindow, 'batch'), 0),
    atMost('batch DynamoDB requests per event', batch?.requestsPerEvent ?? null, 0.03),
    atMost('batch cold start over a bare handler (SDK bundled)', batchCold?.initRatio ?? null, 1.3),
  ];
}

function appliedTwice(rows: readonly CrashWindowRow[], strategy: string): number | null {
  const own = rows.filter((row) => row.strategy === strategy);
  return own.length === 0 ? null : own.reduce((sum, row) => sum + row.appliedTwice, 0);
}

function atMost(name: string, measured: number | null, bound: number): Target {
  return { name, measured, bound: { atMost: bound }, verdict: measured === null ? 'unchecked' : measured <= bound ? 'met' : 'missed' };
}

function atLeast(name: string, measured: number | null, bound: number): Target {
  return { name, measured, bound: { atLeast: bound }, verdict: measured === null ? 'unchecked' : measured >= bound ? 'met' : 'missed' };
}
