/**
 * The plan behind every ordered publish: a request is the longest run of entries not yet accepted,
 * in publish order, that holds no order key twice; a refused entry stays first in line.
 */
import { PendingEntries } from '../../../../lambdas/runtime/producing/pending-entries';

test('entries of distinct keys go out together, in publish order, up to the limit', () => {
  const pending = new PendingEntries(['a', 'b', 'c', 'd']);
  expect(pending.next(3)).toEqual([0, 1, 2]);
  expect(pending.next(10)).toEqual([0, 1, 2, 3]);
});

test('a request ends before a second entry of a key', () => {
  const pending = new PendingEntries(['a', 'b', 'a', 'c']);
  const first = pending.next(10);
  expect(first).toEqual([0, 1]);
  pending.settle(first, []);
  expect(pending.next(10)).toEqual([2, 3]);
});

test('a refused entry stays first in line, and the next entry of its key waits for it', () => {
  const pending = new PendingEntries(['a', 'b', 'c', 'a', 'd']);
  const first = pending.next(10);
  expect(first).toEqual([0, 1, 2]);
  pending.settle(first, [0]);
  const second = pending.next(10);
  expect(second).toEqual([0]);
  pending.settle(second, []);
  expect(pending.next(10)).toEqual([3, 4]);
});

test('entries without a key keep no order of their own: they never end a request', () => {
  const pending = new PendingEntries([undefined, 'a', undefined, 'b']);
  expect(pending.next(10)).toEqual([0, 1, 2, 3]);
});

test('remaining lists every entry not yet accepted, in publish order', () => {
  const pending = new PendingEntries(['a', 'b', 'a', 'b']);
  pending.settle(pending.next(10), [1]);
  expect(pending.remaining()).toEqual([1, 2, 3]);
  expect(pending.isEmpty).toBe(false);
});

test('settling anything but the request next() returned is a bug, refused', () => {
  const pending = new PendingEntries(['a', 'b']);
  expect(() => pending.settle([1], [])).toThrow('[1] is not the request next() returned');
});

test('nothing to send, nothing pending', () => {
  expect(new PendingEntries([]).isEmpty).toBe(true);
});
