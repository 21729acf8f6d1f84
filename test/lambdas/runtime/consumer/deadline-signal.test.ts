/**
 * Handlers get an AbortSignal for the invocation's deadline (issue 40, part 2): on Lambda Managed
 * Instances a timeout does not stop the code, so a handler that passes the signal to what it calls
 * is the only thing that stops its work there. Real timers: the signal's is Node's own.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { createConsumer } from '../../../../lambdas/runtime/consumer/consumer';
import { directStrategy } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { deadlineSignal } from '../../../../lambdas/runtime/core/time-budget';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { lambdaContext, pageView, sqsEvent, sqsRecord } from '../../../helpers/events';
import { recordingObservability } from '../../../helpers/fakes';

/** Whether `signal` aborted within `withinMs`, and after how long. */
async function abortOf(signal: AbortSignal | undefined, withinMs: number): Promise<{ aborted: boolean; afterMs: number }> {
  const started = Date.now();
  if (signal === undefined) return { aborted: false, afterMs: 0 };
  const aborted = signal.aborted || (await Promise.race([new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(true), { once: true })), delay(withinMs).then(() => false)]));
  return { aborted, afterMs: Date.now() - started };
}

test('a handler\'s context carries a signal that aborts at the invocation\'s deadline, with a timeout as its reason', async () => {
  const seen: { aborted: boolean; afterMs: number; reason?: string }[] = [];
  const handle = createConsumer({
    name: 'page-views',
    source: SourceKind.SQS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (_event, context) => {
        const abort = await abortOf(context.signal, 2_000);
        seen.push({ ...abort, reason: (context.signal?.reason as Error | undefined)?.name });
      }),
    },
    strategy: directStrategy(),
    observability: recordingObservability(),
    timeBudget: false,
  });
  const deadline = Date.now() + 60;
  await handle(sqsEvent(sqsRecord(pageView('p1'))), { ...lambdaContext('page-views'), getRemainingTimeInMillis: () => deadline - Date.now() });
  expect(seen).toEqual([{ aborted: true, afterMs: expect.any(Number), reason: 'TimeoutError' }]);
  expect(seen[0]?.afterMs).toBeGreaterThanOrEqual(30);
  expect(seen[0]?.afterMs).toBeLessThan(1_500);
});

test('deadlineSignal: never without a clock that reads a number; at once when the time is up', async () => {
  expect((await abortOf(deadlineSignal(undefined), 50)).aborted).toBe(false);
  expect((await abortOf(deadlineSignal({ getRemainingTimeInMillis: () => Number.NaN }), 50)).aborted).toBe(false);
  expect((await abortOf(deadlineSignal({ getRemainingTimeInMillis: () => -5_000 }), 500)).aborted).toBe(true);
});
