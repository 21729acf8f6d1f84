/**
 * The dedup namespace of a consumer's generation: generation 1 keeps the keys a consumer has always
 * written, a later one is apart from it and from every other consumer's, and the conditional put
 * and the read of redelivered events' records use it.
 */
import { dedupKey, dedupPutAction } from '../../../../lambdas/runtime/stores/dynamodb/dedup-record';
import { dedupNamespace } from '../../../../lambdas/runtime/consumer/namespace';
import { CONSUMER_NAME_PATTERN } from '../../../../lib/consumer-props';

test('generation 1 is the consumer\'s name; a later one is `<name>@g<n>`', () => {
  expect(dedupNamespace('order-projection')).toBe('order-projection');
  expect(dedupNamespace('order-projection', 1)).toBe('order-projection');
  expect(dedupNamespace('order-projection', 2)).toBe('order-projection@g2');
  expect(dedupKey(dedupNamespace('order-projection', 12), 'evt-1')).toBe('order-projection@g12#evt-1');
});

test('no generation\'s namespace is another consumer\'s name: a consumer name cannot hold "@"', () => {
  expect(CONSUMER_NAME_PATTERN.test(dedupNamespace('order-projection', 2))).toBe(false);
  expect(CONSUMER_NAME_PATTERN.test('order-projection-g2')).toBe(true);
  expect(dedupNamespace('order-projection', 2)).not.toBe(dedupNamespace('order-projection-g2'));
});

test.each([0, -1, 1.5, Number.NaN])('refuses generation %p', (generation) => {
  expect(() => dedupNamespace('counter', generation)).toThrow(RangeError);
});

test('the conditional put keys the record in the generation\'s namespace', () => {
  const put = (generation?: number) => dedupPutAction({ table: 'idempotency', consumer: 'counter', generation }, { eventId: 'evt-1', payloadHash: 'h' }, 1).Put?.Item?.id?.S;
  expect([put(), put(1), put(3)]).toEqual(['counter#evt-1', 'counter#evt-1', 'counter@g3#evt-1']);
});
