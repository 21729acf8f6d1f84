/**
 * Local mode evaluates the consumers' alarms (lib/consumer-alarms.ts) on the synthesized example
 * stack from what it measures: the runtime's EMF lines (ConflictingDuplicates), the functions'
 * and the mappings' own counts (Errors, FailedInvokeEventCount), and fauxqs's messages
 * (ApproximateAgeOfOldestMessage). Each fires on the fault it is for, notifies the alarm topic,
 * and clears. What local mode cannot measure is listed with the reason.
 */
import { PurgeQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AlarmTransition } from '../../../emulator/alarms';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import type { DeliveryFaults } from '../../../emulator/types';
import { createEnvelope } from '../../../lambdas/runtime';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { copyAssembly, stopStackAfterEach, useAssemblyCopies } from './assembly-copy';

useAssemblyCopies();

const stoppedAfterEach = stopStackAfterEach();

/** SQS batches crash after their commit (the response is lost) while `on`. */
class CrashSwitch implements DeliveryFaults {
  public on = false;
  public decide(batch: { readonly source: string }): { crashAfterInvoke?: boolean } {
    return { crashAfterInvoke: this.on && batch.source === 'sqs' };
  }
}

function pageView(businessKey: string, pageId: string) {
  return createEnvelope({ type: 'page.viewed', businessKey, source: 'test', payload: { pageId } });
}

function alarmNamed(local: LocalStack, logicalIdPrefix: string): string {
  const alarm = local.alarms.evaluated.find((candidate) => candidate.alarmName.includes(logicalIdPrefix));
  if (!alarm) throw new Error(`no evaluated alarm ${logicalIdPrefix}; evaluated: ${local.alarms.evaluated.map((candidate) => candidate.alarmName).join(', ')}`);
  return alarm.alarmName;
}

function transitionsOf(local: LocalStack, alarmName: string): AlarmTransition[] {
  return local.alarmEvaluator.history().filter((transition) => transition.alarmName === alarmName);
}

async function untilState(local: LocalStack, alarmName: string, state: string, timeoutMs = 30_000): Promise<AlarmTransition> {
  return pollUntil(async () => transitionsOf(local, alarmName).filter((transition) => transition.newState === state).at(-1), `${alarmName} to go ${state}`, { timeoutMs, intervalMs: 100 });
}

test('the consumer alarms fire on their faults from local measurements, notify the alarm topic, and clear', async () => {
  const crashes = new CrashSwitch();
  const local = stoppedAfterEach(await startLocalStack({ engines: sharedEngines(), synthesized: copyAssembly(), nameSuffix: `-${uniqueName('alarms')}`, faults: crashes }));
  const alarmTopic = output(local.outputs, 'AlarmTopicArn');
  const counterQueue = output(local.outputs, 'PageViewsQueueUrl');
  const send = (body: unknown) => local.clients.sqs.send(new SendMessageCommand({ QueueUrl: counterQueue, MessageBody: JSON.stringify(body) }));

  // What local mode cannot measure is said so, with the reason; everything else is evaluated.
  // (The rebuilt order projection's too: its IteratorAge and Throttles, as every stream consumer's.)
  expect(local.alarms.notEvaluated.map((alarm) => alarm.metric).sort()).toEqual([...Array(3).fill('AWS/Lambda IteratorAge'), ...Array(6).fill('AWS/Lambda Throttles')]);
  expect(local.alarms.notEvaluated.find((alarm) => alarm.metric === 'AWS/Lambda Throttles')?.reason).toMatch(/do not throttle/);
  const conflicts = alarmNamed(local, 'PageViewCounterConsumerAlarmsConflictingDuplicates');
  const errors = alarmNamed(local, 'PageViewCounterConsumerAlarmsErrors');
  const failedInvokes = alarmNamed(local, 'PageViewCounterConsumerAlarmsFailedInvokeEvents');
  const oldestMessage = alarmNamed(local, 'AccountLedgerConsumerAlarmsOldestMessageAge');
  alarmNamed(local, 'OrderProjectionConsumerAlarmsDroppedEvents');
  for (const name of [conflicts, errors, failedInvokes, oldestMessage]) await untilState(local, name, 'OK');

  // A producer reuses an event id for different content: the runtime's EMF line counts it.
  await send(pageView('reused-key', 'first-content'));
  await send(pageView('reused-key', 'other-content'));
  const conflicted = await untilState(local, conflicts, 'ALARM');
  expect(conflicted.notified).toEqual([alarmTopic]);
  expect(conflicted.datapoints.at(-1)?.value).toBeGreaterThanOrEqual(1);
  expect((await untilState(local, conflicts, 'OK')).notified).toEqual([alarmTopic]);

  // Invocations die after their commit: Errors fires at once, FailedInvokeEventCount after 5 periods of it.
  crashes.on = true;
  const publishing = setInterval(() => void send(pageView(uniqueName('crash'), 'crash')).catch(() => undefined), 200);
  try {
    expect((await untilState(local, errors, 'ALARM')).notified).toEqual([alarmTopic]);
    const failed = await untilState(local, failedInvokes, 'ALARM', 60_000);
    expect(failed.datapoints).toHaveLength(5);
    expect(failed.datapoints.every((point) => (point.value ?? 0) > 0)).toBe(true);
  } finally {
    clearInterval(publishing);
    crashes.on = false;
  }
  await untilState(local, errors, 'OK');
  await untilState(local, failedInvokes, 'OK');

  // The ledger's consumer (a FIFO queue) stops: its oldest message ages past visibility timeout x max receive count.
  const ledgerQueue = output(local.outputs, 'LedgerQueueUrl');
  await local.mappings.find((spec) => spec.sourceQueueUrl === ledgerQueue)?.mapping.stop();
  await local.clients.sqs.send(new SendMessageCommand({ QueueUrl: ledgerQueue, MessageBody: '{"waiting":"for a consumer"}', MessageGroupId: 'account-1', MessageDeduplicationId: uniqueName('waiting') }));
  const aged = await untilState(local, oldestMessage, 'ALARM', 60_000);
  const threshold = local.alarms.evaluated.find((alarm) => alarm.alarmName === oldestMessage)?.threshold ?? Number.NaN;
  expect(aged.datapoints.every((point) => (point.value ?? 0) > threshold)).toBe(true);
  expect(aged.notified).toEqual([alarmTopic]);
  await local.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: ledgerQueue }));
  await untilState(local, oldestMessage, 'OK');
}, 180_000);
