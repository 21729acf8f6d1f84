/** The replay's window from its flags, and the order its shards are read in. */
import { parentsFirst, parseDuration, parseReplayTime, replayWindow, streamKindOf } from '../../../operations/replay';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');

test('a time is an ISO 8601 time or a duration back from now', () => {
  expect(parseReplayTime('2026-12-01T09:00:00Z', '--from', NOW)).toBe(Date.parse('2026-12-01T09:00:00Z'));
  expect(parseReplayTime('90m', '--from', NOW)).toBe(NOW - 90 * 60_000);
  expect(parseReplayTime('6h', '--from', NOW)).toBe(NOW - 6 * 3_600_000);
  expect(parseReplayTime('2d', '--from', NOW)).toBe(NOW - 2 * 86_400_000);
  expect(parseReplayTime('30s', '--to', NOW)).toBe(NOW - 30_000);
  expect(() => parseReplayTime('yesterday', '--from', NOW)).toThrow('--from "yesterday" is neither an ISO 8601 time (2026-12-01T09:00:00Z) nor a duration back from now (90m, 6h, 2d)');
  expect(() => parseReplayTime('2026-13-45', '--to', NOW)).toThrow(/--to "2026-13-45" is neither/);
});

test('--retry-for takes a duration, and refuses what is not one, naming the flag', () => {
  expect(parseDuration('90s', '--retry-for')).toBe(90_000);
  expect(parseDuration('5m', '--retry-for')).toBe(300_000);
  expect(parseDuration('1.5h', '--retry-for')).toBe(5_400_000);
  expect(parseDuration('0s', '--retry-for')).toBe(0);
  expect(() => parseDuration('5 minutes', '--retry-for')).toThrow('--retry-for "5 minutes" is not a duration (90s, 5m, 1h)');
  expect(() => parseDuration('-5m', '--retry-for')).toThrow(/is not a duration/);
});

test('a window is from before to, ends at now at the latest, and never starts in the future', () => {
  expect(replayWindow('2h', undefined, NOW)).toEqual({ fromMs: NOW - 7_200_000, toMs: NOW });
  expect(replayWindow('2h', '1h', NOW)).toEqual({ fromMs: NOW - 7_200_000, toMs: NOW - 3_600_000 });
  expect(replayWindow('2026-12-02T11:00:00Z', '2026-12-03T00:00:00Z', NOW)).toEqual({ fromMs: NOW - 3_600_000, toMs: NOW });
  expect(() => replayWindow('1h', '2h', NOW)).toThrow('--from (2026-12-02T11:00:00.000Z) must be before --to (2026-12-02T10:00:00.000Z)');
  expect(() => replayWindow('2026-12-03T00:00:00Z', '2026-12-04T00:00:00Z', NOW)).toThrow('--from (2026-12-03T00:00:00.000Z) is in the future');
});

test('shards are read parents first, whatever order they are listed in', () => {
  const shards = [{ shardId: 'c', parentShardId: 'b' }, { shardId: 'b', parentShardId: 'a' }, { shardId: 'd' }, { shardId: 'a' }, { shardId: 'e', parentShardId: 'gone' }];
  expect(parentsFirst(shards).map((shard) => shard.shardId)).toEqual(['a', 'b', 'c', 'd', 'e']);
});

test('a stream ARN names its kind; a queue ARN names none', () => {
  expect(streamKindOf('arn:aws:kinesis:us-east-1:123456789012:stream/orders')).toBe('kinesis');
  expect(streamKindOf('arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-11-30T00:00:00.000')).toBe('dynamodb-stream');
  expect(streamKindOf('arn:aws:sqs:us-east-1:123456789012:page-views')).toBeUndefined();
  expect(streamKindOf('arn:aws:dynamodb:us-east-1:123456789012:table/Orders')).toBeUndefined();
});
