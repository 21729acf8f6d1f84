/** The crash-window part of the report: per strategy and crash point, invocations that died and effects applied twice. */
import type { CrashWindowRow } from './crash-window';
import { table } from './text-table';

const POINTS: Readonly<Record<CrashWindowRow['point'], string>> = {
  'before-response': 'after the effects, before the batch response',
  'before-completed': 'after the effect, before the COMPLETED update',
};

/** The part's heading and table, or nothing when it was skipped. */
export function crashWindowLines(rows: readonly CrashWindowRow[]): string[] {
  if (rows.length === 0) return [];
  const cells = rows.map((row) => [row.strategy, POINTS[row.point], String(row.events), String(row.crashes), String(row.appliedTwice), String(row.lost)]);
  return [
    'Crash window: invocations die at the point named, the whole batch comes back after the function timeout (as SQS redelivers it); effects applied twice (and lost) counted from the counters; naive\'s count includes the workload\'s own duplicates',
    table(['strategy', 'crash', 'records', 'crashes', 'applied twice', 'lost'], cells),
    '',
  ];
}
