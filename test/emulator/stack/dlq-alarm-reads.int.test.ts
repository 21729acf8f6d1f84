/**
 * The DLQ depth alarm stays true while someone reads the DLQ, on the synthesized stack with its
 * alarm evaluator running (not paused). `eo dlq inspect` and a redrive hide the messages they have
 * received until their pass ends: several alarm periods for a large DLQ or a paced redrive (here:
 * a 2 s final long poll, and `--rate 1`). An alarm on the visible messages alone sees an empty
 * queue then and sends OK; this one counts visible and in-flight messages and sends no OK while
 * the DLQ holds a message. Only the redrive that empties it brings OK.
 */
import { queueDepthAlarms } from '../../../emulator/stack/alarms';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createEnvelope } from '../../../lambdas/runtime';
import { depthOf } from '../../../aws/sqs/peek';
import { dlqContextOfLocalStack } from '../../../emulator/stack/dlq-context';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack } from '../../../emulator/stack/runtime';
import { inspectQueue, redriveQueue } from '../../../operations/dlq';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { copyAssembly, stopStackAfterEach, useAssemblyCopies } from './assembly-copy';

useAssemblyCopies();

const stoppedAfterEach = stopStackAfterEach();

const FAST_SWEEP = { receiveWaitSeconds: 0 } as const;

function pageView(pageId: string) {
  return createEnvelope({ type: 'page.viewed', businessKey: uniqueName(pageId), source: 'test', payload: { pageId } });
}

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  return pollUntil(async () => {
    const value = await read();
    return done(value) ? value : undefined;
  }, what, { timeoutMs: 30_000, intervalMs: 100 });
}

test('an inspect and a partial redrive of a non-empty DLQ send no OK; the redrive that empties it does', async () => {
  const local = stoppedAfterEach(await startLocalStack({ engines: sharedEngines(), synthesized: copyAssembly(), nameSuffix: `-${uniqueName('reads')}` }));
  const dlqUrl = output(local.outputs, 'PageViewCounterDlqUrl');
  const dlqName = [...local.resources.queues.values()].find((queue) => queue.url === dlqUrl)?.name;
  const alarm = queueDepthAlarms(local.alarms).find((candidate) => candidate.queueName === dlqName)?.alarm;
  if (!alarm) throw new Error('the page-view counter DLQ has no depth alarm the evaluator runs');
  const transitions = () => local.alarmEvaluator.history().filter((transition) => transition.alarmName === alarm.alarmName).map((transition) => transition.newState);
  await until(transitions, (states) => states.includes('OK'), 'the alarm to start OK');

  // Page views SQS would have moved here (no failure context): each redriven to the counter's queue.
  for (const event of [pageView('held-1'), pageView('held-2'), pageView('held-3')]) await local.clients.sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: JSON.stringify(event) }));
  await until(transitions, (states) => states.at(-1) === 'ALARM', 'the alarm to fire');

  const context = dlqContextOfLocalStack(local);
  const slowPass = { receiveWaitSeconds: Math.ceil((2 * local.alarmPeriodMs) / 1000) };
  const inspection = await inspectQueue({ ...context, queue: dlqUrl }, { sweep: slowPass });
  expect(inspection.total).toBe(3);
  expect(await depthOf(local.clients.sqs, dlqUrl)).toMatchObject({ visible: 3 });

  const partial = await redriveQueue({ ...context, queue: dlqUrl }, { max: 2, rate: 1, sweep: slowPass });
  expect(partial).toMatchObject({ redriven: 2, stoppedEarly: '--max 2 reached' });
  await new Promise((resolve) => setTimeout(resolve, 2 * local.alarmPeriodMs));
  expect(transitions()).toEqual(['OK', 'ALARM']);

  const rest = await redriveQueue({ ...context, queue: dlqUrl }, { sweep: FAST_SWEEP });
  expect(rest).toMatchObject({ redriven: 1 });
  expect(await until(transitions, (states) => states.at(-1) === 'OK', 'the alarm to clear once the DLQ is empty')).toEqual(['OK', 'ALARM', 'OK']);
}, 120_000);
