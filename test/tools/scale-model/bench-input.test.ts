/** The bench JSON reader: what it keeps, and an error naming the file and the field for each way a file can be wrong. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BENCH_RUN, BenchInputError, parseBenchRun, readBenchRun } from '../../../tools/scale-model';
import { benchJson } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'scale-model-'));

function fileWith(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The fixture with `edit` applied to it. */
function edited(edit: (json: Record<string, unknown>) => void): Record<string, unknown> {
  const json = benchJson();
  edit(json);
  return json;
}

test('keeps the fields the model uses, and the date only when the file has one', () => {
  const run = parseBenchRun(benchJson(), 'fixture.json');
  expect(run).toMatchObject({ events: 1000, batchSize: 100, seed: 7, rounds: 3, workload: { pages: 50, days: 2 }, machine: { cpus: 4, cpuModel: 'Test CPU', node: 'v20.0.0', dynamodbLocal: '10.3.0' } });
  expect(run.date).toBeUndefined();
  expect(run.strategies.map((strategy) => strategy.name)).toEqual(['batch', 'powertools']);
  expect(run.hotItem[1]).toEqual({ strategy: 'batch', shards: 64, consumers: 16, eventsPerSecond: 1000, conflictsPer1000: 0.5, exact: true, hottestItem: { key: 'day#2026-12-01#shard-3', writeUnitsPerEvent: 0.002 } });
  expect(parseBenchRun(edited((json) => (json.date = '2026-12-01')), 'fixture.json').date).toBe('2026-12-01');
});

test(`reads the committed ${BENCH_RUN}`, () => {
  expect(readBenchRun(path.join(ROOT, BENCH_RUN)).strategies.length).toBeGreaterThanOrEqual(2);
});

test('a missing file says so and how to make one', () => {
  const file = path.join(dir, 'absent.json');
  expect(() => readBenchRun(file)).toThrow(BenchInputError);
  expect(() => readBenchRun(file)).toThrow(`${file}: no such file (write one with \`npm run bench -- --json ${file}\`)`);
});

test('a file that is not JSON names the file', () => {
  const file = fileWith('broken.json', '{"events": 3,');
  expect(() => readBenchRun(file)).toThrow(BenchInputError);
  expect(() => readBenchRun(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not JSON \\(`));
});

test.each<[string, (json: Record<string, unknown>) => void, string]>([
  ['a missing number', (json) => delete (json.strategies as Record<string, unknown>[])[1]?.clientCpuMicrosPerEvent, 'strategies[1].clientCpuMicrosPerEvent is missing, expected a number'],
  ['a string for a number', (json) => (json.batchSize = '100'), 'batchSize is a string, expected a number'],
  ['a zero it divides by', (json) => (json.events = 0), 'events is 0, expected a number above 0'],
  ['a missing object', (json) => delete json.workload, 'workload is missing, expected an object'],
  ['a nested field', (json) => delete ((json.hotItem as Record<string, Record<string, unknown>>[])[2]?.hottestItem ?? {}).key, 'hotItem[2].hottestItem.key is missing, expected a string'],
  ['a count that is not a number', (json) => Object.assign((json.strategies as object[])[0] ?? {}, { requestsByCommand: { TransactWriteItemsCommand: null } }), 'strategies[0].requestsByCommand.TransactWriteItemsCommand is null, expected a number'],
  ['an object for a list', (json) => (json.hotItem = {}), 'hotItem is an object, expected an array'],
  ['a missing strategy', (json) => (json.strategies = (json.strategies as unknown[]).slice(0, 1)), 'strategies has no "powertools" entry (run the bench with --strategies including batch and powertools)'],
])('%s is named with its path', (_, edit, problem) => {
  expect(() => parseBenchRun(edited(edit), 'run.json')).toThrow(new BenchInputError('run.json', problem));
});

test('a top level that is not an object', () => {
  expect(() => parseBenchRun([], 'run.json')).toThrow('run.json: the top level is an array, expected an object');
});
