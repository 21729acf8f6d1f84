/** The redrive's progress line (issue 28): "redriving 2 message(s)" was printed with 1 selected by the filter. */
import { redrivePhase } from '../../../operations/cli/dlq-context';

test('the progress line of a filtered redrive says how many it reads, not that it redrives them all', () => {
  expect(redrivePhase(2, { filter: ['errorType=SchemaViolationError'] })).toBe('reading 2 message(s) to redrive those matching errorType=SchemaViolationError');
  expect(redrivePhase(2, { filter: ['errorType=SchemaViolationError'], dryRun: true })).toBe('dry run: reading 2 message(s) to redrive those matching errorType=SchemaViolationError');
  expect(redrivePhase(2, { filter: [] })).toBe('redriving 2 message(s)');
  expect(redrivePhase(2, { filter: [], dryRun: true })).toBe('dry run: reading 2 message(s)');
});
