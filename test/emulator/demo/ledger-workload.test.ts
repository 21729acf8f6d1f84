/**
 * The demo's account ledger workload: entries 1..k per account, published in that order however
 * the rest of the workload is shuffled, and the expected state the FIFO consumer must reach: each
 * account's history in that order and its balance the sum of its amounts.
 */
import { expectedState } from '../../../emulator/demo/expected';
import { planMessages } from '../../../emulator/demo/publisher';
import { generateWorkload, LEDGER_ENTRY, type WorkloadEvent } from '../../../emulator/demo/workload';
import { seededRandom } from '../../../emulator/faults/random';

const workload = generateWorkload({ events: 2_000, seed: 5, ledgerShare: 0.2 });
const entries = workload.filter((event) => event.kind === 'ledger-entry');
const payloadOf = (event: WorkloadEvent) => event.envelope?.payload as { accountId: string; seq: number; amount: number };

test('a fifth of the valid events are ledger entries for the FIFO queue, grouped by account', () => {
  const valid = workload.filter((event) => event.kind !== 'poison').length;
  expect(entries.length).toBe(Math.round(valid * 0.2));
  for (const entry of entries) {
    expect(entry).toMatchObject({ target: 'ledger', partitionKey: payloadOf(entry).accountId });
    expect(entry.envelope?.type).toBe(LEDGER_ENTRY);
  }
});

test("each account's entries are published in order 1..k, though the workload around them is shuffled", () => {
  const seen = new Map<string, number[]>();
  for (const entry of entries) seen.set(payloadOf(entry).accountId, [...(seen.get(payloadOf(entry).accountId) ?? []), payloadOf(entry).seq]);
  expect(seen.size).toBeGreaterThan(10);
  for (const sequence of seen.values()) expect(sequence).toEqual(sequence.map((_, index) => index + 1));
  const positions = entries.map((entry) => workload.indexOf(entry));
  expect(positions.at(-1)! - positions[0]!).toBeGreaterThan(entries.length);
});

test('the expected ledger is every history in publish order and every balance the sum, a producer retry counted once', () => {
  const messages = planMessages(workload, seededRandom(9), 0.5, { pageViewsTopicArn: 'topic', ordersStreamName: 'stream', ledgerQueueUrl: 'queue.fifo', paymentsQueueUrl: 'payments' });
  expect(messages.filter((message) => message.retry && message.target === 'queue.fifo').length).toBeGreaterThan(0);
  const expected = expectedState(messages.map((message) => message.event));
  const [accountId, account] = Object.entries(expected.ledger)[0]!;
  const own = entries.filter((entry) => payloadOf(entry).accountId === accountId);
  expect(account).toEqual({ history: own.map((entry) => payloadOf(entry).seq), balance: own.reduce((sum, entry) => sum + payloadOf(entry).amount, 0) });
  expect(Object.keys(expected.ledger).length).toBe(new Set(entries.map((entry) => payloadOf(entry).accountId)).size);
});
