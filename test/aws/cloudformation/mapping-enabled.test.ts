/**
 * Whether an event source mapping polls, as CloudFormation reads `Enabled`: true unless false (the
 * boolean or the string). Local mode starts only the mappings that poll; the operations tell a
 * rebuilt generation (its mapping off) from the live one by it.
 */
import { mappingEnabled } from '../../../aws/cloudformation/template';
import { synthQueueConsumer } from '../../lib/support';

test.each<[string, Record<string, unknown>, boolean]>([
  ['unset', {}, true],
  ['true', { Enabled: true }, true],
  ['"true"', { Enabled: 'true' }, true],
  ['false', { Enabled: false }, false],
  ['"false"', { Enabled: 'false' }, false],
])('Enabled %s -> %p', (_label, properties, enabled) => {
  expect(mappingEnabled(properties)).toBe(enabled);
});

test('a consumer\'s mapping polls unless its construct says otherwise', () => {
  const [mapping] = Object.values(synthQueueConsumer().findResources('AWS::Lambda::EventSourceMapping'));
  expect(mappingEnabled((mapping as { Properties: Record<string, unknown> }).Properties)).toBe(true);
});
