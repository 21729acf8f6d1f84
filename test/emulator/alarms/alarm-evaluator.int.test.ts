/**
 * AlarmEvaluator against fauxqs: the DLQ alarm of the constructs (Maximum of the visible and
 * in-flight depth over a period, 1 of 1, > 0, missing data not breaching, alarm and OK actions on
 * a topic) evaluated locally from the queue's sampled depth, its notifications read back from an
 * SQS inbox subscribed to the topic.
 */
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { destroyClients, sqsClient, type LocalClients } from '../../../emulator/engines';
import { AlarmEvaluator, AlarmState, evaluateAlarm, type AlarmEvaluatorOptions, type AlarmNotification, type Datapoint, type MetricAlarm } from '../../../emulator/alarms';
import { MetricSampler, MetricStore, queueDepthGauges, queueMetric } from '../../../emulator/metrics';
import { ABOVE_ZERO_IN_ONE_PERIOD } from '../../helpers/alarms';
import { createQueue, receiveAll, subscribeQueueToTopic, testClients, testEndpoints, uniqueName, type CreatedQueue } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { injectFaults, serviceError } from '../../helpers/sdk';

let clients: LocalClients;
const evaluators: AlarmEvaluator[] = [];
beforeAll(() => {
  clients = testClients();
});
afterEach(async () => {
  await Promise.all(evaluators.splice(0).map((evaluator) => evaluator.stop()));
});
afterAll(() => destroyClients(clients));

/** A topic and an inbox queue subscribed to it without raw delivery, as an operator's mailbox. */
async function topicWithInbox(): Promise<{ topicArn: string; inbox: CreatedQueue }> {
  const { TopicArn } = await clients.sns.send(new CreateTopicCommand({ Name: uniqueName('alarms') }));
  if (TopicArn === undefined) throw new Error('CreateTopic returned no TopicArn');
  const inbox = await createQueue(clients.sqs, uniqueName('alarm-inbox'));
  await subscribeQueueToTopic(clients.sns, { topicArn: TopicArn, queueArn: inbox.arn });
  return { topicArn: TopicArn, inbox };
}

/** The DLQ alarm as the constructs synthesize it: messages held, visible + in flight (`visibleOnly`: the visible ones alone). */
function dlqAlarm(dlq: CreatedQueue, actions: { alarm: string[]; ok: string[] }, options: { visibleOnly?: boolean } = {}): TestAlarm {
  const queueName = dlq.arn.split(':').pop() ?? '';
  const metric = (metricName: string, id?: string) => ({ ...(id !== undefined && { id }), key: queueMetric({ name: queueName }, metricName), statistic: 'Maximum' as const });
  const held = {
    metrics: [metric('ApproximateNumberOfMessagesVisible', 'visible'), metric('ApproximateNumberOfMessagesNotVisible', 'inFlight')],
    expression: { id: 'expr_1', expression: 'visible + inFlight', label: 'Messages held (visible + in flight)' },
  };
  return {
    alarmName: `${queueName}-depth`,
    alarmDescription: 'Messages are waiting in the dead-letter queue.',
    ...(options.visibleOnly ? { metrics: [metric('ApproximateNumberOfMessagesVisible')] } : held),
    queueName,
    queueUrl: dlq.url,
    ...ABOVE_ZERO_IN_ONE_PERIOD,
    alarmActions: actions.alarm,
    okActions: actions.ok,
  };
}

/** The rule part of the `Trigger` of a notification for {@link dlqAlarm}. */
const TRIGGER_RULE = { Period: 60, EvaluationPeriods: 1, DatapointsToAlarm: 1, ComparisonOperator: 'GreaterThanThreshold', Threshold: 0, TreatMissingData: 'notBreaching', EvaluateLowSampleCountPercentile: '' } as const;

/** An alarm on a test queue's depth, with the queue it watches. */
type TestAlarm = MetricAlarm & { readonly queueName: string; readonly queueUrl: string };

/** The alarms' queues' depth, sampled through `sqs`, in a store of their own. */
function depthOf(alarms: readonly TestAlarm[], sqs: SQSClient): MetricSampler {
  return new MetricSampler(new MetricStore(), [], alarms.map((alarm) => queueDepthGauges(sqs, { name: alarm.queueName, url: alarm.queueUrl })));
}

function evaluator(alarms: TestAlarm[], options: Partial<AlarmEvaluatorOptions> = {}, sqs: SQSClient = clients.sqs): AlarmEvaluator {
  const created = new AlarmEvaluator({ alarms, metrics: depthOf(alarms, sqs), sns: clients.sns, sampleIntervalMs: 1_000, periodMs: 1_000, ...options });
  evaluators.push(created);
  return created;
}

/** The SNS envelopes in an inbox, with the CloudWatch document parsed out of each. */
async function notifications(inbox: CreatedQueue, max = 10): Promise<Array<{ Subject: string; Type: string; alarm: AlarmNotification }>> {
  // fauxqs delivers to subscribed queues during Publish: what is not there within 500 ms never comes.
  const messages = await receiveAll(clients.sqs, inbox.url, { max, waitMs: 500 });
  return messages.map((message) => {
    const envelope = JSON.parse(message.Body ?? '') as { Subject: string; Type: string; Message: string };
    return { ...envelope, alarm: JSON.parse(envelope.Message) as AlarmNotification };
  });
}

async function drain(queue: CreatedQueue): Promise<void> {
  await receiveAll(clients.sqs, queue.url, { max: 1, waitMs: 300 });
}

test('an empty queue takes a new alarm from INSUFFICIENT_DATA to OK, and the OK action hears of it', async () => {
  const [dlq, { topicArn, inbox }] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), topicWithInbox()]);
  const alarms = evaluator([dlqAlarm(dlq, { alarm: [topicArn], ok: [topicArn] })]);
  expect(alarms.states()).toEqual({ [`${dlq.arn.split(':').pop()}-depth`]: 'INSUFFICIENT_DATA' });
  await alarms.evaluateNow();
  expect(Object.values(alarms.states())).toEqual(['OK']);
  const [ok, ...others] = await notifications(inbox);
  expect(others).toHaveLength(0);
  expect(ok?.Subject).toMatch(/^OK: ".+-depth" in US East \(N\. Virginia\)$/);
  expect(ok?.alarm).toMatchObject({ OldStateValue: 'INSUFFICIENT_DATA', NewStateValue: 'OK' });
  expect(ok?.alarm.NewStateReason).toMatch(/^Threshold Crossed: 1 out of the last 1 datapoints \[0\.0 \(\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d\)\] was not greater than the threshold \(0\.0\)/);
});

test('a message in the queue raises ALARM with CloudWatch notification, and draining it returns to OK', async () => {
  const [dlq, { topicArn, inbox }] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), topicWithInbox()]);
  const definition = dlqAlarm(dlq, { alarm: [topicArn], ok: [topicArn] });
  const alarms = evaluator([definition], { notifyInitialTransition: false });
  await alarms.evaluateNow();
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: '{"failed":"event"}' }));
  await alarms.evaluateNow();
  const [raised] = await notifications(inbox, 1);
  expect(raised?.Type).toBe('Notification');
  expect(raised?.Subject).toBe(`ALARM: "${definition.alarmName}" in US East (N. Virginia)`);
  expect(raised?.alarm).toEqual({
    AlarmName: definition.alarmName,
    AlarmDescription: 'Messages are waiting in the dead-letter queue.',
    AWSAccountId: '000000000000',
    AlarmConfigurationUpdatedTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/),
    NewStateValue: 'ALARM',
    NewStateReason: expect.stringMatching(/^Threshold Crossed: 1 out of the last 1 datapoints \[1\.0 \(.+\)\] was greater than the threshold \(0\.0\) \(minimum 1 datapoint for OK -> ALARM transition\)\.$/),
    StateChangeTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/),
    Region: 'US East (N. Virginia)',
    AlarmArn: `arn:aws:cloudwatch:us-east-1:000000000000:alarm:${definition.alarmName}`,
    OldStateValue: 'OK',
    OKActions: [topicArn],
    AlarmActions: [topicArn],
    InsufficientDataActions: [],
    Trigger: {
      ...TRIGGER_RULE,
      Metrics: [
        { Expression: 'visible + inFlight', Id: 'expr_1', Label: 'Messages held (visible + in flight)', ReturnData: true },
        ...['visible', 'inFlight'].map((id, index) => ({
          Id: id,
          MetricStat: { Metric: { Dimensions: [{ value: definition.queueName, name: 'QueueName' }], MetricName: ['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible'][index], Namespace: 'AWS/SQS' }, Period: 60, Stat: 'Maximum' },
          ReturnData: false,
        })),
      ],
    },
  });
  await drain(dlq);
  await alarms.evaluateNow();
  const [cleared] = await notifications(inbox, 1);
  expect(cleared?.alarm).toMatchObject({ OldStateValue: 'ALARM', NewStateValue: 'OK' });
  expect(cleared?.Subject).toBe(`OK: "${definition.alarmName}" in US East (N. Virginia)`);
});

test("a single-metric alarm's Trigger names its metric, statistic and dimensions", async () => {
  const [dlq, { topicArn, inbox }] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), topicWithInbox()]);
  const definition = dlqAlarm(dlq, { alarm: [topicArn], ok: [] }, { visibleOnly: true });
  const alarms = evaluator([definition], { notifyInitialTransition: false });
  await alarms.evaluateNow();
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'x' }));
  await alarms.evaluateNow();
  const [raised] = await notifications(inbox, 1);
  expect(raised?.alarm.Trigger).toEqual({
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Namespace: 'AWS/SQS',
    StatisticType: 'Statistic',
    Statistic: 'MAXIMUM',
    Unit: null,
    Dimensions: [{ value: definition.queueName, name: 'QueueName' }],
    ...TRIGGER_RULE,
  });
});

test('a message someone is reading (received, not deleted) keeps the held alarm in ALARM; an alarm on the visible ones alone sends a false OK', async () => {
  const [dlq, { topicArn, inbox }] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), topicWithInbox()]);
  const held = dlqAlarm(dlq, { alarm: [topicArn], ok: [topicArn] });
  const visibleOnly = { ...dlqAlarm(dlq, { alarm: [topicArn], ok: [topicArn] }, { visibleOnly: true }), alarmName: `${held.alarmName}-visible` };
  const alarms = evaluator([held, visibleOnly], { notifyInitialTransition: false });
  await alarms.evaluateNow();
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: '{"failed":"event"}' }));
  await alarms.evaluateNow();
  expect(alarms.states()).toEqual({ [held.alarmName]: 'ALARM', [visibleOnly.alarmName]: 'ALARM' });
  await receiveAll(clients.sqs, dlq.url, { max: 1, waitMs: 1_000, deleteMessages: false });
  await alarms.evaluateNow();
  expect(alarms.states()).toEqual({ [held.alarmName]: 'ALARM', [visibleOnly.alarmName]: 'OK' });
  const sent = (await notifications(inbox)).map((notification) => `${notification.alarm.AlarmName}: ${notification.alarm.NewStateValue}`);
  expect(sent.sort()).toEqual([`${held.alarmName}: ALARM`, `${visibleOnly.alarmName}: ALARM`, `${visibleOnly.alarmName}: OK`].sort());
});

test('a period whose samples all failed is sampled again as it closes: a busy machine does not read as missing data, a false OK', async () => {
  const dlq = await createQueue(clients.sqs, uniqueName('dlq'));
  const sqs = sqsClient(testEndpoints().sqs);
  const alarms = evaluator([dlqAlarm(dlq, { alarm: [], ok: [] })], {}, sqs);
  try {
    await alarms.evaluateNow();
    await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'x' }));
    await alarms.evaluateNow();
    expect(alarms.history().map((transition) => transition.newState)).toEqual(['OK', 'ALARM']);
    // One failed GetQueueAttributes stands for the samples a busy event loop did not take in time.
    const faults = injectFaults(sqs, { commandName: 'GetQueueAttributesCommand', times: 1, error: () => serviceError('ServiceUnavailable', 503) });
    await expect(alarms.evaluateNow()).rejects.toThrow('ServiceUnavailable');
    expect(faults.failures).toBe(1);
    expect(alarms.history().map((transition) => transition.newState)).toEqual(['OK', 'ALARM']);
  } finally {
    sqs.destroy();
  }
});

test('ALARM goes to the alarm actions and OK to the OK actions, each to every topic listed', async () => {
  const [dlq, paging, chat, resolved] = await Promise.all([createQueue(clients.sqs, uniqueName('dlq')), topicWithInbox(), topicWithInbox(), topicWithInbox()]);
  const alarms = evaluator([dlqAlarm(dlq, { alarm: [paging.topicArn, chat.topicArn], ok: [resolved.topicArn] })], { notifyInitialTransition: false });
  await alarms.evaluateNow();
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'x' }));
  await alarms.evaluateNow();
  await drain(dlq);
  await alarms.evaluateNow();
  const states = async (inbox: CreatedQueue): Promise<string[]> => (await notifications(inbox)).map((n) => n.alarm.NewStateValue);
  expect(await Promise.all([states(paging.inbox), states(chat.inbox), states(resolved.inbox)])).toEqual([['ALARM'], ['ALARM'], ['OK']]);
  expect(alarms.history().map(({ oldState, newState, notified }) => ({ oldState, newState, notified }))).toEqual([
    { oldState: 'INSUFFICIENT_DATA', newState: 'OK', notified: [] },
    { oldState: 'OK', newState: 'ALARM', notified: [paging.topicArn, chat.topicArn] },
    { oldState: 'ALARM', newState: 'OK', notified: [resolved.topicArn] },
  ]);
});

test('on its timers, the Maximum of a period catches a message that came and went between evaluations', async () => {
  const dlq = await createQueue(clients.sqs, uniqueName('dlq'));
  const definition = dlqAlarm(dlq, { alarm: [], ok: [] });
  const alarms = evaluator([definition], { sampleIntervalMs: 50, periodMs: 600 });
  alarms.start();
  await pollUntil(async () => (alarms.states()[definition.alarmName] === 'OK' ? true : undefined), 'the alarm to be OK', { timeoutMs: 3_000 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'x' }));
  await new Promise((resolve) => setTimeout(resolve, 200));
  await drain(dlq);
  await pollUntil(async () => (alarms.states()[definition.alarmName] === 'ALARM' ? true : undefined), 'the alarm to be raised', { timeoutMs: 3_000 });
  await pollUntil(async () => (alarms.states()[definition.alarmName] === 'OK' ? true : undefined), 'the alarm to clear', { timeoutMs: 3_000 });
});

test('whilePaused: a DLQ read by receiving its messages keeps the ALARM of an alarm on visible messages alone, and the timers run again after', async () => {
  const dlq = await createQueue(clients.sqs, uniqueName('dlq'), { VisibilityTimeout: '30' });
  const definition = dlqAlarm(dlq, { alarm: [], ok: [] }, { visibleOnly: true });
  const alarms = evaluator([definition], { sampleIntervalMs: 50, periodMs: 300 });
  await clients.sqs.send(new SendMessageCommand({ QueueUrl: dlq.url, MessageBody: 'poison' }));
  alarms.start();
  await pollUntil(async () => (alarms.states()[definition.alarmName] === 'ALARM' ? true : undefined), 'the alarm to be raised', { timeoutMs: 3_000 });
  // Reading the message hides it for its visibility timeout: three periods would see an empty queue.
  await alarms.whilePaused(async () => {
    await receiveAll(clients.sqs, dlq.url, { max: 1, waitMs: 1_000, deleteMessages: false });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  });
  expect(alarms.states()[definition.alarmName]).toBe('ALARM');
  // Running again, the evaluator sees the hidden message as gone.
  await pollUntil(async () => (alarms.states()[definition.alarmName] === 'OK' ? true : undefined), 'the timers to run again', { timeoutMs: 3_000 });
});

describe('M out of N', () => {
  const rule = { comparisonOperator: 'GreaterThanThreshold', threshold: 0, evaluationPeriods: 3, datapointsToAlarm: 2 } as const;
  const window = (...values: Array<number | undefined>): Datapoint[] => values.map((value, i) => ({ timestamp: new Date(Date.UTC(2026, 10, 30, 10, i)), value }));

  test.each([
    ['notBreaching', [0, 1, 0], 'OK'],
    ['notBreaching', [1, 0, 1], 'ALARM'],
    ['notBreaching', [undefined, undefined, 1], 'OK'],
    ['breaching', [undefined, undefined, 1], 'ALARM'],
    ['missing', [undefined, undefined, undefined], 'INSUFFICIENT_DATA'],
    ['ignore', [undefined, undefined, undefined], 'ALARM'],
    ['missing', [undefined, 2, 3], 'ALARM'],
  ] as const)('treatMissingData %s, datapoints %j: %s', (treatMissingData, values, expected) => {
    expect(evaluateAlarm({ ...rule, treatMissingData }, window(...values), AlarmState.ALARM).state).toBe(expected);
  });
});
