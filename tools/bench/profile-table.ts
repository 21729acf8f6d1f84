/** A latency profile's part of the report: what each strategy does per invocation and what a million records cost, against the peer and the write-unit floor. */
import { latencyLabel } from '../../emulator/gateway';
import type { ProfileReport } from './profiles';
import { BASELINE_STRATEGY } from './strategies';
import { table } from './text-table';

/** The profile's heading, its table, and a blank line. */
export function profileLines(profile: ProfileReport): string[] {
  const peer = profile.strategies.find((strategy) => strategy.name === BASELINE_STRATEGY);
  const ratio = (value: number, base: number | undefined): string => (base ? `${(value / base).toFixed(2)}x` : '-');
  const header = ['strategy', 'events/s', `vs ${BASELINE_STRATEGY}`, 'Lambda ms/event', 'requests/event', 'WRU/event', 'vs floor', 'RRU/event', '$/M events', `vs ${BASELINE_STRATEGY}`, 'exact'];
  const rows = profile.strategies.map((strategy) => [
    strategy.name,
    strategy.eventsPerSecond.toFixed(0),
    ratio(strategy.eventsPerSecond, peer?.eventsPerSecond),
    strategy.lambdaMsPerEvent.toFixed(3),
    strategy.requestsPerEvent.toFixed(4),
    strategy.writeUnitsPerEvent.toFixed(3),
    ratio(strategy.writeUnitsPerEvent, profile.writeUnitFloorPerEvent),
    strategy.readUnitsPerEvent.toFixed(3),
    strategy.dollarsPerMillionEvents.toFixed(3),
    ratio(strategy.dollarsPerMillionEvents, peer?.dollarsPerMillionEvents),
    strategy.exact ? 'yes' : 'NO',
  ]);
  return [
    `Profile ${profile.name} (latency ${latencyLabel(profile.latencyProfile)}): one consumer, batches one after another; Lambda's billed ms per record (arm64, deployed memory), ` +
      `$ per million records for DynamoDB on demand + Lambda + SQS at tools/scale-model's dated prices; write-unit floor ${profile.writeUnitFloorPerEvent.toFixed(3)} WRU/event`,
    table(header, rows),
    '',
  ];
}
