/** The targets are checked against the run's last profile; a target nothing measured is unchecked, never met. */
import type { ColdStart } from '../../../tools/bench/coldstart';
import type { CrashWindowRow } from '../../../tools/bench/crash-window';
import type { ProfileReport, ProfileStrategy } from '../../../tools/bench/profiles';
import { checkTargets } from '../../../tools/bench/targets';

function strategy(name: ProfileStrategy['name'], figures: Partial<ProfileStrategy>): ProfileStrategy {
  const cost = { dynamodb: 0, lambda: 0, sqs: 0, total: figures.dollarsPerMillionEvents ?? 1 };
  return { name, eventsPerSecond: 100, lambdaMsPerEvent: 1, requestsPerEvent: 0.02, writeUnitsPerEvent: 3, readUnitsPerEvent: 0, dollarsPerMillionEvents: 1, exact: true, cost, wallMsPerEvent: 1, cpuMsPerEvent: 0.1, ...figures };
}

function profile(name: 'local' | 'aws', strategies: ProfileStrategy[]): ProfileReport {
  return { name, latencyProfile: { name: name === 'local' ? 'none' : 'aws', scale: 1 }, strategies, writeUnitFloorPerEvent: 3 };
}

const coldStart = [{ handler: 'batch', sdk: 'bundled', initRatio: 1.2 } as ColdStart];
const crashWindow: CrashWindowRow[] = [
  { strategy: 'batch', point: 'before-response', events: 100, crashes: 4, appliedTwice: 0, lost: 0, reportedFailed: 0, beyondMaxReceiveCount: 0 },
  { strategy: 'powertools', point: 'before-completed', events: 100, crashes: 4, appliedTwice: 7, lost: 0, reportedFailed: 0, beyondMaxReceiveCount: 0 },
];

const verdicts = (targets: ReturnType<typeof checkTargets>): string[] => targets.map((target) => target.verdict);

test('every target met under the aws profile, whatever the local profile says', () => {
  const aws = profile('aws', [strategy('powertools', { eventsPerSecond: 100, dollarsPerMillionEvents: 5 }), strategy('direct', { eventsPerSecond: 90 }), strategy('batch', { eventsPerSecond: 250, dollarsPerMillionEvents: 3, writeUnitsPerEvent: 3.2 })]);
  const local = profile('local', [strategy('powertools', { eventsPerSecond: 1000 }), strategy('batch', { eventsPerSecond: 10 })]);
  const targets = checkTargets({ profiles: [local, aws], crashWindow, coldStart });
  expect(verdicts(targets)).toEqual(['met', 'met', 'met', 'met', 'met', 'met', 'met', 'met']);
  expect(targets[0]?.measured).toBeCloseTo(2.5, 10);
});

test('each figure past its bound misses its target alone', () => {
  const aws = profile('aws', [
    strategy('powertools', { eventsPerSecond: 100, dollarsPerMillionEvents: 5 }),
    strategy('direct', { eventsPerSecond: 80 }),
    strategy('batch', { eventsPerSecond: 199, dollarsPerMillionEvents: 4.5, writeUnitsPerEvent: 3.4, exact: false, requestsPerEvent: 0.031 }),
  ]);
  const targets = checkTargets({ profiles: [aws], crashWindow: [{ ...crashWindow[0] as CrashWindowRow, appliedTwice: 1 }], coldStart: [{ ...coldStart[0] as ColdStart, initRatio: 1.31 }] });
  expect(verdicts(targets)).toEqual(['missed', 'missed', 'missed', 'missed', 'missed', 'missed', 'missed', 'missed']);
});

test('a target nothing measured is unchecked', () => {
  const targets = checkTargets({ profiles: [profile('aws', [strategy('batch', {})])], crashWindow: [], coldStart: [] });
  expect(targets.filter((target) => target.verdict === 'unchecked').map((target) => target.name)).toEqual([
    "batch events per second per invocation over the peer's",
    "batch dollars per million events over the peer's",
    "direct time per batch over the peer's",
    'batch effects applied twice in the crash window',
    'batch cold start over a bare handler (SDK bundled)',
  ]);
});
