/** The hold the stack gives an SQS mapping: the constructs' rule (6x the timeout plus the window), on local timings. */
import { holdSecondsFor } from '../../../emulator/event-sources/held-batch';

test.each([
  { timeout: 5, window: 1, hold: 31, why: "the page views' 5 s local timeout and 1 s window" },
  { timeout: 5, window: 0, hold: 30, why: 'the ledger: no window' },
  { timeout: 2.5, window: 0, hold: 15, why: 'a fractional timeout' },
  { timeout: 900, window: 300, hold: 5_700, why: "Lambda's longest timeout and window" },
])('$timeout s and a $window s window hold $hold s ($why)', ({ timeout, window, hold }) => {
  expect(holdSecondsFor(timeout, window)).toBe(hold);
});
