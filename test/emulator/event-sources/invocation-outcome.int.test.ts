/** How a mapping reads a response: the cases AWS documents for partial batch responses. */
import { invocationOutcome } from '../../../emulator/event-sources/invocation-outcome';
import { returned, threw } from './support';

const batch = ['id-1', 'id-2', 'id-3'];

test.each([
  { response: undefined, what: 'no response' },
  { response: null, what: 'a null response' },
  { response: {}, what: 'an empty object' },
  { response: { batchItemFailures: null }, what: 'null batchItemFailures' },
  { response: { batchItemFailures: [] }, what: 'an empty batchItemFailures' },
])('$what means the whole batch succeeded', ({ response }) => {
  expect(invocationOutcome(returned(response), batch, true)).toEqual({ kind: 'succeeded' });
});

test('the named records failed', () => {
  const response = { batchItemFailures: [{ itemIdentifier: 'id-3' }, { itemIdentifier: 'id-2' }] };
  expect(invocationOutcome(returned(response), batch, true)).toEqual({ kind: 'partial', failed: new Set(['id-3', 'id-2']) });
});

test.each([
  { response: { batchItemFailures: [{ itemIdentifier: 'id-9' }] }, what: 'an identifier not in the batch' },
  { response: { batchItemFailures: [{ itemIdentifier: '' }] }, what: 'an empty identifier' },
  { response: { batchItemFailures: [{ itemIdentifier: null }] }, what: 'a null identifier' },
  { response: { batchItemFailures: [{ id: 'id-1' }] }, what: 'a wrong key' },
  { response: { batchItemFailures: 'id-1' }, what: 'batchItemFailures not an array' },
  { response: 'id-1', what: 'a string response' },
])('$what fails the whole batch', ({ response }) => {
  expect(invocationOutcome(returned(response), batch, true)).toMatchObject({ kind: 'failed', reason: 'invalid-response' });
});

test('without reportBatchItemFailures the response is ignored', () => {
  const response = { batchItemFailures: [{ itemIdentifier: 'id-9' }] };
  expect(invocationOutcome(returned(response), batch, false)).toEqual({ kind: 'succeeded' });
});

test('a thrown error fails the whole batch', () => {
  expect(invocationOutcome(threw('nope'), batch, true)).toMatchObject({ kind: 'failed', reason: 'function-error', detail: 'error: Error: nope' });
});
