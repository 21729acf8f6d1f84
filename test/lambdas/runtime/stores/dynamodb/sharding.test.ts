/**
 * Sharded counters, the pure parts: which sharding a key accepts, which items a read sums, which
 * shard a seed picks (the same one every time, and each about as often as the others), and the
 * increment effects that carry a sharding.
 */
import { checkEffects, increment, itemIdOf, onShard, type Increment } from '../../../../../lambdas/runtime/stores/dynamodb/effects';
import { InvalidEffectError } from '../../../../../lambdas/runtime/core/errors';
import { checkSharding, counterKeys, MAX_SHARDS, SHARD_SEPARATOR, shardFor, shardKey, unshardedValue } from '../../../../../lambdas/runtime/stores/dynamodb/sharding';
import { seededRandom } from '../../../../helpers/fakes';
import { thrownBy } from '../../../../helpers/thrown';

const COUNTERS = 'counters';
const DAY = { pk: 'day#2026-12-01' };

/** A uuid-like id drawn from a seeded generator, so that a statistical test repeats exactly. */
function uuidLike(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('checkSharding', () => {
  test.each([0, -1, MAX_SHARDS + 1, 1.5, Number.NaN])('refuses %p shards, naming the count and the range', (shards) => {
    expect(() => checkSharding(DAY, { shards })).toThrow(new RangeError(`shards must be a whole number from 1 to ${MAX_SHARDS} (given ${shards})`));
  });

  test.each([1, 2, MAX_SHARDS])('accepts a count of %p for a one-attribute key, on that attribute', (shards) => {
    expect(checkSharding(DAY, { shards })).toBe('pk');
  });

  test('a key of two attributes must name the one that carries the shard number', () => {
    const key = { pk: 'tenant#7', sk: 'day#2026-12-01' };
    expect(() => checkSharding(key, { shards: 8 })).toThrow(/2 attributes \(pk, sk\) must name its shardAttribute/);
    expect(checkSharding(key, { shards: 8, shardAttribute: 'sk' })).toBe('sk');
  });

  test('the shard attribute must be a string attribute of the key', () => {
    expect(() => checkSharding({ id: 42 }, { shards: 8 })).toThrow(/shard attribute id must be a string attribute of the key \(given 42\)/);
    expect(() => checkSharding({ pk: 'tenant#7', n: 3 }, { shards: 8, shardAttribute: 'n' })).toThrow(RangeError);
    expect(() => checkSharding(DAY, { shards: 8, shardAttribute: 'missing' })).toThrow(/shard attribute missing/);
  });
});

describe('counterKeys', () => {
  test('the unsharded key first, then shards 0 to N-1 on the key attribute', () => {
    expect(counterKeys(DAY, { shards: 3 })).toEqual([
      { pk: 'day#2026-12-01' },
      { pk: 'day#2026-12-01#shard-0' },
      { pk: 'day#2026-12-01#shard-1' },
      { pk: 'day#2026-12-01#shard-2' },
    ]);
  });

  test('one shard is the item itself', () => {
    expect(counterKeys(DAY, { shards: 1 })).toEqual([DAY]);
  });

  test('a composite key gets the suffix on its shard attribute only, and every key is distinct', () => {
    const keys = counterKeys({ pk: 'tenant#7', sk: 'day#2026-12-01' }, { shards: MAX_SHARDS, shardAttribute: 'sk' });
    expect(keys).toHaveLength(MAX_SHARDS + 1);
    expect(keys[MAX_SHARDS]).toEqual({ pk: 'tenant#7', sk: `day#2026-12-01${SHARD_SEPARATOR}${MAX_SHARDS - 1}` });
    expect(keys.every((key) => key.pk === 'tenant#7')).toBe(true);
    expect(new Set(keys.map((key) => key.sk)).size).toBe(MAX_SHARDS + 1);
  });

  test('refuses a sharding that does not fit the key', () => {
    expect(() => counterKeys(DAY, { shards: 0 })).toThrow(RangeError);
  });
});

describe('shardFor', () => {
  test('the same seed picks the same shard every time, within range', () => {
    const picks = Array.from({ length: 5 }, () => shardFor('evt-0b1c2d3e', 32));
    expect(new Set(picks).size).toBe(1);
    expect(picks[0]).toBeGreaterThanOrEqual(0);
    expect(picks[0]).toBeLessThan(32);
  });

  test('different seeds pick different shards', () => {
    const picks = new Set(Array.from({ length: 100 }, (_, index) => shardFor(`evt-${index}`, 8)));
    expect(picks.size).toBe(8);
  });

  test('one shard is always shard 0', () => {
    expect(['', 'a', 'evt-123', uuidLike(seededRandom(1))].map((seed) => shardFor(seed, 1))).toEqual([0, 0, 0, 0]);
  });

  test('10,000 uuid-like seeds spread over 16 shards within 20% of the mean each', () => {
    const random = seededRandom(20261201);
    const counts = new Array<number>(16).fill(0);
    for (let index = 0; index < 10_000; index += 1) counts[shardFor(uuidLike(random), 16)] += 1;
    const mean = 10_000 / 16;
    for (const count of counts) {
      expect(count).toBeGreaterThanOrEqual(0.8 * mean);
      expect(count).toBeLessThanOrEqual(1.2 * mean);
    }
  });
});

describe('unshardedValue', () => {
  test.each([
    ['day#2026-12-01#shard-7', 'day#2026-12-01'],
    ['day#2026-12-01#shard-999', 'day#2026-12-01'],
    ['day#2026-12-01', 'day#2026-12-01'],
    ['day#2026-12-01#shard-', 'day#2026-12-01#shard-'],
    ['day#2026-12-01#shard-x1', 'day#2026-12-01#shard-x1'],
    ['a#shard-1#shard-2', 'a#shard-1'],
  ])('%s belongs to %s', (value, counter) => {
    expect(unshardedValue(value)).toBe(counter);
  });

  test('folds every key counterKeys makes back into its counter', () => {
    expect(new Set(counterKeys(DAY, { shards: 16 }).map((key) => unshardedValue(String(key.pk))))).toEqual(new Set([DAY.pk]));
  });
});

describe('increment with shards', () => {
  test('carries the shard count and the attribute it shards', () => {
    expect(increment(COUNTERS, DAY, 'views', 1, { shards: 8 })).toEqual({ kind: 'increment', table: COUNTERS, key: DAY, attribute: 'views', amount: 1, sharding: { shards: 8, shardAttribute: 'pk' } });
  });

  test('one shard, or none asked for, is a plain increment', () => {
    expect(increment(COUNTERS, DAY, 'views', 2, { shards: 1 })).not.toHaveProperty('sharding');
    expect(increment(COUNTERS, DAY, 'views', 2)).not.toHaveProperty('sharding');
  });

  test('a composite key shards on the attribute it names', () => {
    const effect = increment(COUNTERS, { pk: 'tenant#7', sk: 'day#2026-12-01' }, 'views', 1, { shards: 4, shardAttribute: 'sk' });
    expect(effect.sharding).toEqual({ shards: 4, shardAttribute: 'sk' });
  });

  test.each([
    ['0 shards', DAY, { shards: 0 }, /shards must be a whole number/],
    [`${MAX_SHARDS + 1} shards`, DAY, { shards: MAX_SHARDS + 1 }, /shards must be a whole number/],
    ['1.5 shards', DAY, { shards: 1.5 }, /given 1.5/],
    ['a composite key without shardAttribute', { pk: 'tenant#7', sk: 'day' }, { shards: 8 }, /must name its shardAttribute/],
    ['a numeric shard attribute', { id: 7 }, { shards: 8 }, /must be a string attribute/],
  ])('refuses %s with a RangeError', (_label, key, options, message) => {
    expect(() => increment(COUNTERS, key, 'views', 1, options)).toThrow(RangeError);
    expect(() => increment(COUNTERS, key, 'views', 1, options)).toThrow(message);
  });

  test('a sharded counter has one item id whatever shard it lands on, distinct from the unsharded item', () => {
    const sharded = increment(COUNTERS, DAY, 'views', 1, { shards: 8 });
    expect(itemIdOf(sharded)).toBe(itemIdOf(increment(COUNTERS, DAY, 'hits', 3, { shards: 8 })));
    expect(itemIdOf(sharded)).not.toBe(itemIdOf(increment(COUNTERS, DAY, 'views')));
  });
});

describe('onShard', () => {
  const sharded = increment(COUNTERS, DAY, 'views', 3, { shards: 8 });

  test('lands a sharded increment on the shard the seed picks, as a plain increment of that item', () => {
    const shard = shardFor('evt-42', 8);
    expect(onShard(sharded, 'evt-42')).toEqual({ kind: 'increment', table: COUNTERS, key: shardKey(DAY, 'pk', shard), attribute: 'views', amount: 3 });
    expect(onShard(sharded, 'evt-42').key.pk).toBe(`day#2026-12-01#shard-${shard}`);
  });

  test('seeds that pick different shards land on different items', () => {
    const seeds = Array.from({ length: 50 }, (_, index) => `evt-${index}`);
    const landed = new Set(seeds.map((seed) => onShard(sharded, seed).key.pk));
    expect(landed.size).toBe(8);
  });

  test('a composite key keeps its other attributes', () => {
    const effect = increment(COUNTERS, { pk: 'tenant#7', sk: 'day#2026-12-01' }, 'views', 1, { shards: 4, shardAttribute: 'sk' });
    expect(onShard(effect, 'evt-1').key).toEqual({ pk: 'tenant#7', sk: `day#2026-12-01#shard-${shardFor('evt-1', 4)}` });
  });

  test('leaves an unsharded increment as it is', () => {
    const plain = increment(COUNTERS, DAY, 'views');
    expect(onShard(plain, 'evt-42')).toBe(plain);
  });
});

describe('checkEffects and sharding', () => {
  const handBuilt = (sharding: unknown): Increment => ({ kind: 'increment', table: COUNTERS, key: DAY, attribute: 'views', amount: 1, sharding } as Increment);

  test('accepts a sharded increment that increment() built', () => {
    expect(() => checkEffects([increment(COUNTERS, DAY, 'views', 1, { shards: 8 })])).not.toThrow();
  });

  test.each([
    ['0 shards', { shards: 0, shardAttribute: 'pk' }],
    ['2,000 shards', { shards: 2000, shardAttribute: 'pk' }],
    ['a fractional count', { shards: 2.5, shardAttribute: 'pk' }],
    ['an attribute the key lacks', { shards: 8, shardAttribute: 'sk' }],
  ])('refuses a hand-built sharding of %s with InvalidEffectError, naming the effect', (_label, sharding) => {
    const check = () => checkEffects([increment(COUNTERS, { pk: 'page#home' }, 'views'), handBuilt(sharding)]);
    expect(check).toThrow(InvalidEffectError);
    expect(check).toThrow(/effect 1 on counters is sharded wrongly/);
  });

  test('the InvalidEffectError keeps the RangeError as its cause', () => {
    const error = thrownBy(() => checkEffects([handBuilt({ shards: 0, shardAttribute: 'pk' })]));
    expect(error).toBeInstanceOf(InvalidEffectError);
    expect((error as InvalidEffectError).cause).toBeInstanceOf(RangeError);
  });
});
