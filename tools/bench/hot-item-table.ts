/** The hot-item part of the report as a table: one row per case, with its ratio to the same case without the shared counter. */
import type { HotItemReport } from './hot-item-part';
import { table } from './text-table';

/** The table with a line saying what it measured above it; nothing when the part was skipped. */
export function hotItemLines(rows: readonly HotItemReport[]): string[] {
  if (rows.length === 0) return [];
  return [
    'Hot item: concurrent consumers on one table through the contract layer (TransactionConflict as on AWS), every view adding to its page and its day; ' +
      '"vs no day" is the ratio to the same case on the views without the day counter, run right after it',
    hotItemTable(rows),
    '',
  ];
}

/** Strategy, shards, consumers, events per second and its ratio, conflicts and redeliveries per 1,000 events, requests and write units per event, the hottest item, exactness. */
export function hotItemTable(rows: readonly HotItemReport[]): string {
  const header = ['strategy', 'shards', 'consumers', 'events/s', 'vs no day', 'conflicts/1000', 'redelivered/1000', 'requests/event', 'WRU/event', 'hottest item', 'its WRU/event', 'its WRU/s', 'exact'];
  const cells = rows.map((row) => [
    row.strategy,
    String(row.shards),
    String(row.consumers),
    row.eventsPerSecond.toFixed(0),
    `${row.vsNoSharedCounter.toFixed(2)}x`,
    row.conflictsPer1000.toFixed(2),
    row.redeliveriesPer1000.toFixed(2),
    row.requestsPerEvent.toFixed(4),
    row.writeUnitsPerEvent.toFixed(3),
    row.hottestItem.key,
    row.hottestItem.writeUnitsPerEvent.toFixed(3),
    row.hottestItem.writeUnitsPerSecond.toFixed(0),
    exactness(row),
  ]);
  return table(header, cells);
}

function exactness(row: HotItemReport): string {
  const both = row.exact && row.noSharedCounter.exact ? 'yes' : 'NO';
  return row.beyondMaxReceiveCount > 0 ? `${both} (${row.beyondMaxReceiveCount} past maxReceiveCount)` : both;
}
