/**
 * The events per second the example as deployed takes through one queue, one table and its day
 * counter, whichever gives out first: the one-line answer at the top of docs/scale.md.
 */
import type { QueueRow, TableRow } from './capacity';
import type { DeployedSettings } from './deployed';
import type { Figure } from './figures';
import type { HotKeyRow } from './hot-key';

export interface Limit {
  readonly label: string;
  readonly eventsPerSecond: Figure;
}

export interface Sustained {
  readonly strategy: string;
  readonly limits: readonly Limit[];
  /** The lowest of `limits`. */
  readonly binding: Limit;
}

/** For each strategy, its limits at the deployed settings and the one that binds. */
export function sustainedRates(hotKeys: readonly HotKeyRow[], tables: readonly TableRow[], queues: readonly QueueRow[], settings: DeployedSettings): Sustained[] {
  return tables.map((table) => {
    const shards = table.strategy === 'batch' ? settings.counterShards : 1;
    const hotKey = hotKeys.find((row) => row.strategy === table.strategy && row.shards === shards);
    const queue = queues.find((row) => row.strategy === table.strategy && row.concurrency === settings.queueMaxConcurrency);
    const limits: Limit[] = [
      ...(hotKey ? [{ label: `the day counter${shards > 1 ? ` over ${shards} shards` : ''}`, eventsPerSecond: hotKey.eventsPerSecond }] : []),
      { label: 'the table quota', eventsPerSecond: table.eventsPerSecond.writes },
      ...(queue ? [{ label: `the queue at maxConcurrency ${settings.queueMaxConcurrency}`, eventsPerSecond: queue.projected }] : []),
    ];
    const binding = limits.reduce((lowest, limit) => (limit.eventsPerSecond.value < lowest.eventsPerSecond.value ? limit : lowest));
    return { strategy: table.strategy, limits, binding };
  });
}
