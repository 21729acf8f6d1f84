/**
 * SQS's 12-hour cap on a received message's visibility, counted from the ReceiveMessage request:
 * the budget refuses a visibility change that would end past it, as SQS does, and checks only
 * the receipt handles it saw handed out.
 */
import { VisibilityBudget } from '../../../emulator/contract';

const HOUR_MS = 3_600_000;

/** A budget on a clock the test moves, with handle `h` received at 0. */
function budgetWithReceive(maxHandles?: number) {
  let now = 0;
  const budget = new VisibilityBudget({ now: () => now, maxHandles });
  budget.received(['h'], 0);
  return { budget, at: (ms: number) => (now = ms) };
}

test('43200 s right at the receive is within the cap; a millisecond later it is not', () => {
  const { budget, at } = budgetWithReceive();
  expect(budget.check('h', 43_200)).toEqual({ ok: true });
  at(1);
  expect(budget.check('h', 43_200)).toMatchObject({
    ok: false,
    error: {
      rule: 'sqs.visibility-timeout.total',
      code: 'InvalidParameterValue',
      status: 400,
      message: 'Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
    },
  });
});

test('extending does not reset the cap: 11 hours in, an hour more fits and an hour and a second does not', () => {
  const { budget, at } = budgetWithReceive();
  at(11 * HOUR_MS);
  expect(budget.check('h', 3_600).ok).toBe(true);
  expect(budget.check('h', 3_601).ok).toBe(false);
  expect(budget.check('h', 0).ok).toBe(true);
});

test('a handle it never saw, a request without a timeout, or a deleted message is not checked', () => {
  const { budget, at } = budgetWithReceive();
  at(HOUR_MS);
  expect(budget.check('other', 43_200).ok).toBe(true);
  expect(budget.check(undefined, 43_200).ok).toBe(true);
  expect(budget.check('h', undefined).ok).toBe(true);
  budget.forget(['h']);
  expect(budget.check('h', 43_200).ok).toBe(true);
});

test('a second receive of the message restarts its cap from that receive', () => {
  const { budget, at } = budgetWithReceive();
  at(10 * HOUR_MS);
  budget.received(['h'], 10 * HOUR_MS);
  at(10 * HOUR_MS + 1_000);
  expect(budget.check('h', 43_199).ok).toBe(true);
  expect(budget.check('h', 43_200).ok).toBe(false);
});

test('handles past their 12 hours are forgotten at the next receive, and no more than maxHandles are kept', () => {
  const { budget, at } = budgetWithReceive(3);
  at(13 * HOUR_MS);
  budget.received(['a', 'b'], 13 * HOUR_MS);
  expect(budget.size()).toBe(2);
  budget.received(['c', 'd'], 13 * HOUR_MS);
  expect(budget.size()).toBe(3);
  at(13 * HOUR_MS + 1);
  expect(budget.check('a', 43_200).ok).toBe(true);
  expect(budget.check('d', 43_200).ok).toBe(false);
});

test.each([0, -1, 2.5])('fails if maxHandles is %d', (maxHandles) => {
  expect(() => new VisibilityBudget({ maxHandles })).toThrow(new RangeError(`maxHandles must be a whole number >= 1 (given ${maxHandles})`));
});
