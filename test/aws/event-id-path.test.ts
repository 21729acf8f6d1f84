/**
 * One rule for an EventBridge consumer's `eventIdPath`, so that a path the construct accepts at
 * synth never fails the runtime at its first batch, and a path the runtime would take is never
 * refused at synth.
 */
import { eventIdPathProblem } from '../../aws/envelope-formats';
import { checkEnvelope, EnvelopeFormat } from '../../lib/event-envelope';
import { parseEventIdPath } from '../../lambdas/runtime/decoding/eventbridge-event';

const PATHS = ['detail.orderId', 'detail.order.id', 'detail.instance-id', 'detail.order id', 'id', 'detail', 'detail.', 'detail..id', 'detail. orderId', 'detail.orderId ', 'source', 'details.orderId', ''];

test.each(PATHS)('the construct and the runtime agree on %p', (path) => {
  const bySynth = () => checkEnvelope({ format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: path });
  const byRuntime = () => parseEventIdPath(path);
  if (eventIdPathProblem(path) === undefined) {
    expect(bySynth).not.toThrow();
    expect(byRuntime().segments).toEqual(path.split('.'));
  } else {
    expect(bySynth).toThrow(`envelope.eventIdPath ${eventIdPathProblem(path)}`);
    expect(byRuntime).toThrow(`eventIdPath ${eventIdPathProblem(path)}`);
  }
});

test.each(['detail.orderId', 'detail.order.id', 'detail.order id'])('%p names a key under detail', (path) => {
  expect(eventIdPathProblem(path)).toBeUndefined();
});

test.each(['id', 'detail', 'detail..id', 'detail. orderId', 'source'])('%p cannot be a dedup key', (path) => {
  expect(eventIdPathProblem(path)).toBeDefined();
});
