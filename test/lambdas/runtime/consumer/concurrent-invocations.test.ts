/**
 * Two invocations of one handler at once, as Lambda Managed Instances run them in one Node.js
 * process (issue 40, part 2): each invocation's metrics and log lines are its own. The handler's
 * Powertools Logger and Metrics are the real ones, writing to stdout as on Lambda, with no runtime
 * invoke store (this process has none, as local mode and Lambda's default runtime have none):
 * before, one `Metrics` per consumer was flushed at the end of every invocation, so the one that
 * ended first published the other's counts, and no log line said which invocation wrote it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { createConsumer } from '../../../../lambdas/runtime/consumer/consumer';
import { directStrategy } from '../../../../lambdas/runtime/consumer/direct-strategy';
import { PermanentError } from '../../../../lambdas/runtime/core/errors';
import type { Observability } from '../../../../lambdas/runtime/core/observability';
import { SourceKind } from '../../../../lambdas/runtime/decoding/records';
import { route } from '../../../../lambdas/runtime/decoding/routes';
import { DlqSender } from '../../../../lambdas/runtime/failures/dlq';
import { kinesisEvent, kinesisRecord, pageView, requestContext } from '../../../helpers/events';
import { gate } from '../../../helpers/gate';
import { asClient, FakeClient, noSleep } from '../../../helpers/fakes';

/** What the process wrote (stdout, and stderr where Powertools puts warnings) while `run` ran, line by line, parsed. */
async function outputOf(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter((line) => line.trim() !== ''));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return { text: line };
    }
  });
}

/** The consumer's observability on real Powertools, metrics published as on Lambda (test/helpers/quiet.ts turns them off for the other tests). */
function publishingObservability(): Observability {
  const disabled = process.env.POWERTOOLS_METRICS_DISABLED;
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  try {
    const metrics = new Metrics({ namespace: 'EffectivelyOnce', serviceName: 'kinesis-ledger' });
    return { logger: new Logger({ serviceName: 'kinesis-ledger', logLevel: 'INFO' }), metrics, count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value) };
  } finally {
    process.env.POWERTOOLS_METRICS_DISABLED = disabled;
  }
}

test('each invocation publishes its own counts and tags its own log lines, though they overlap in one process', async () => {
  const held = gate();
  const started = gate();
  const handle = createConsumer({
    name: 'kinesis-ledger',
    source: SourceKind.KINESIS,
    routes: {
      'page.viewed': route(z.object({ pageId: z.string() }), async (event) => {
        if (event.payload.pageId.startsWith('poison-')) throw new PermanentError(`${event.payload.pageId} can never apply`);
        if (event.payload.pageId === 'a-held') {
          started.open();
          await held.wait;
        }
      }),
    },
    strategy: directStrategy({ maxAttempts: 1, sleep: noSleep }),
    dlq: new DlqSender(asClient<SQSClient>(new FakeClient(() => ({ MessageId: 'dlq-message' }))), 'https://sqs.us-east-1.amazonaws.com/000000000000/ledger-dlq', { sleep: noSleep, maxAttempts: 1 }),
    observability: publishingObservability(),
    timeBudget: false,
  });
  const lines = await outputOf(async () => {
    // A: a poison record (dead-lettered and counted at once), then one that holds A open.
    const a = handle(kinesisEvent(kinesisRecord(pageView('poison-a1'), { sequenceNumber: '1' }), kinesisRecord(pageView('a-held'), { sequenceNumber: '2' })), requestContext('ledger', 'request-a'));
    await started.wait;
    // B runs start to end while A is held.
    await handle(kinesisEvent(kinesisRecord(pageView('b1'), { sequenceNumber: '10' })), requestContext('ledger', 'request-b'));
    held.open();
    await a;
  });

  const published = lines.filter((line) => line._aws !== undefined);
  expect(published.map(({ EventsProcessed, PermanentFailures, SentToDlq }) => ({ EventsProcessed, PermanentFailures, SentToDlq }))).toEqual([
    { EventsProcessed: 1, PermanentFailures: undefined, SentToDlq: undefined },
    { EventsProcessed: 1, PermanentFailures: 1, SentToDlq: 1 },
  ]);
  const logs = lines.filter((line) => line._aws === undefined);
  const byRequest = (requestId: string) => logs.filter((line) => line.function_request_id === requestId).map((line) => line.message);
  expect(byRequest('request-a')).toEqual(['record sent to the DLQ', 'batch done']);
  expect(byRequest('request-b')).toEqual(['batch done']);
  expect(logs.filter((line) => line.function_request_id === undefined)).toEqual([]);
});
