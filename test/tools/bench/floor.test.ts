/**
 * The write-unit floor counts, batch by batch, one dedup record per new event and one write per
 * distinct item the new events touch, at a transaction's 2 WRU: in-batch copies and redeliveries
 * of applied events cost nothing at the floor.
 */
import { writeUnitFloor } from '../../../tools/bench/floor';
import { generateWorkload, type Workload } from '../../../tools/bench/workload';
import { pageView, sqsEvent, sqsRecord } from '../../helpers/events';

const DAY_ONE = '2026-11-30T10:00:00.000Z';
const DAY_TWO = '2026-12-01T10:00:00.000Z';

function workloadOf(...batches: ReturnType<typeof sqsEvent>[]): Workload {
  const deliveries = batches.reduce((sum, batch) => sum + batch.Records.length, 0);
  return { batches, deliveries, distinctEvents: 0, inBatchDuplicates: 0, redeliveries: 0, expected: new Map() };
}

test('new events pay their dedup record and each distinct item once per batch; copies and redeliveries pay nothing', () => {
  const a = sqsRecord(pageView('p1', 'a', DAY_ONE));
  const b = sqsRecord(pageView('p1', 'b', DAY_ONE));
  const c = sqsRecord(pageView('p2', 'c', DAY_ONE));
  const d = sqsRecord(pageView('p1', 'd', DAY_TWO));
  const bCopy = sqsRecord(b.body);
  const aAgain = { ...a };
  // Batch 1: a and b are new (2 records), touching page p1 and day one (2 items); b's copy is free.
  // Batch 2: a is a redelivery; c and d are new (2 records), touching p2, p1, day one and day two (4 items).
  const floor = writeUnitFloor(workloadOf(sqsEvent(a, b, bCopy), sqsEvent(aAgain, c, d)));
  expect(floor.writeUnits).toBe(2 * (2 + 2 + 2 + 4));
  expect(floor.perEvent).toBeCloseTo(20 / 6, 10);
});

test('the bench workload\'s floor is below three dedup-and-item writes a record and above one', () => {
  const floor = writeUnitFloor(generateWorkload({ events: 3_000, seed: 1 }));
  // Each new event costs its dedup record (2 WRU); the distinct items of a batch add less than the 2 items of every event.
  expect(floor.perEvent).toBeGreaterThan(2 * 0.9);
  expect(floor.perEvent).toBeLessThan(2 * 0.9 * 3);
});
