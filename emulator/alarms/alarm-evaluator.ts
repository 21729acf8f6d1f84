import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import { evaluateAlarm } from './evaluation';
import { alarmNotification, alarmSubject, type AlarmLocation } from './notification';
import { AlarmState, type AlarmStateValue, type AlarmTransition, type Datapoint, type QueueDepthAlarm, type QueueDepthMetricName } from './types';

/** Defaults of {@link AlarmEvaluatorOptions}, named once for the code and its docs. */
export const ALARM_EVALUATOR_DEFAULTS = {
  notifyInitialTransition: true,
} as const;

/**
 * The queue attribute read as `ApproximateNumberOfMessagesVisible`: SQS's API name for the
 * messages available for retrieval (neither in flight nor delayed), and the one fauxqs reports.
 */
export const VISIBLE_DEPTH_ATTRIBUTE: QueueAttributeName = 'ApproximateNumberOfMessages';

/** The queue attribute each depth metric is read from. */
const DEPTH_ATTRIBUTES: Readonly<Record<QueueDepthMetricName, QueueAttributeName>> = {
  ApproximateNumberOfMessagesVisible: VISIBLE_DEPTH_ATTRIBUTE,
  ApproximateNumberOfMessagesNotVisible: 'ApproximateNumberOfMessagesNotVisible',
};

/** Options of {@link AlarmEvaluator}. */
export interface AlarmEvaluatorOptions {
  readonly alarms: readonly QueueDepthAlarm[];
  /** Reads the queues' depth (fauxqs: a client with `useQueueUrlAsEndpoint: false`). */
  readonly sqs: SQSClient;
  /** Publishes the notifications. */
  readonly sns: SNSClient;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /** How often each queue's depth is sampled; at most `periodMs`. */
  readonly sampleIntervalMs: number;
  /** The local length of one period (local mode compresses time, e.g. 60 s to 1 s). */
  readonly periodMs: number;
  /**
   * Publish the first transition out of INSUFFICIENT_DATA (normally to OK), as CloudWatch does for
   * an alarm with OK actions. Set to false to keep the inboxes for real state changes.
   * @default true
   */
  readonly notifyInitialTransition?: boolean;
  /** Failures of sampling or publishing while running on timers. @default - ignored */
  readonly onError?: (error: unknown) => void;
}

interface Tracked {
  readonly alarm: QueueDepthAlarm;
  state: AlarmStateValue;
  transitions: number;
  /** Closed periods, oldest first, at most `evaluationPeriods`. */
  readonly datapoints: Datapoint[];
  periodStart: Date;
  /** The Maximum of each of the alarm's metrics in the open period (metric math adds them at its close, as CloudWatch does). */
  periodMax: (number | undefined)[];
}

/**
 * Evaluates CloudWatch alarms on SQS queue depth locally: samples each queue, takes the Maximum
 * per period, evaluates "M out of N" against the threshold, and on every state change publishes
 * CloudWatch's notification to the actions' topics. Alarms start in INSUFFICIENT_DATA, as on AWS.
 *
 * @example
 * const evaluator = new AlarmEvaluator({ alarms, sqs, sns, sampleIntervalMs: 250, periodMs: 1000 });
 * evaluator.start();
 * // ...
 * await evaluator.stop();
 */
export class AlarmEvaluator {
  private readonly tracked: ReadonlyMap<string, Tracked>;
  private readonly transitions: AlarmTransition[] = [];
  private readonly location: AlarmLocation;
  private timers: NodeJS.Timeout[] = [];
  private work: Promise<unknown> = Promise.resolve();

  public constructor(private readonly options: AlarmEvaluatorOptions) {
    validate(options);
    const now = new Date();
    this.location = { region: options.region ?? LOCAL_REGION, accountId: options.accountId ?? LOCAL_ACCOUNT_ID, configuredAt: now };
    this.tracked = new Map(options.alarms.map((alarm) => [alarm.alarmName, track(alarm, now)]));
  }

  /** Samples every `sampleIntervalMs` and closes a period every `periodMs`; the timers do not hold the process open. */
  public start(): void {
    if (this.timers.length > 0) return;
    for (const tracked of this.tracked.values()) tracked.periodStart = new Date();
    const report = (errors: unknown[]): void => errors.forEach((error) => this.options.onError?.(error));
    const tick = (task: () => Promise<unknown[]>): void => void this.serially(task).then(report, (error: unknown) => report([error]));
    const every = (ms: number, task: () => Promise<unknown[]>): NodeJS.Timeout => setInterval(() => tick(task), ms).unref();
    tick(() => this.sampleAll());
    this.timers = [every(this.options.sampleIntervalMs, () => this.sampleAll()), every(this.options.periodMs, () => this.closePeriod())];
  }

  /** Stops the timers and waits for the sample or evaluation in progress. */
  public async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.work;
  }

  /**
   * Runs `work` with the timers stopped, then starts them again if they were running. For reading
   * queues by receiving their messages: the evaluator would take the moment they are invisible for
   * an empty queue, and flip the alarm to OK.
   */
  public async whilePaused<T>(work: () => Promise<T>): Promise<T> {
    const running = this.timers.length > 0;
    await this.stop();
    try {
      return await work();
    } finally {
      if (running) this.start();
    }
  }

  /** Samples once and closes the current period now. Rejects with the first failure, if any. */
  public async evaluateNow(): Promise<void> {
    const errors = await this.serially(async () => [...(await this.sampleAll()), ...(await this.closePeriod())]);
    if (errors.length > 0) throw errors[0];
  }

  /** The current state of every alarm. */
  public states(): Record<string, AlarmStateValue> {
    return Object.fromEntries([...this.tracked].map(([name, tracked]) => [name, tracked.state]));
  }

  /** Every transition so far, oldest first. */
  public history(): AlarmTransition[] {
    return [...this.transitions];
  }

  /** Runs `task` after the previous one, so that samples and evaluations never interleave. */
  private serially(task: () => Promise<unknown[]>): Promise<unknown[]> {
    const run = this.work.then(task);
    this.work = run.catch(() => undefined);
    return run;
  }

  private async sampleAll(): Promise<unknown[]> {
    const results = await Promise.allSettled([...this.tracked.values()].map((tracked) => this.sample(tracked)));
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  }

  private async sample(tracked: Tracked): Promise<void> {
    const attributes = tracked.alarm.metrics.map((metric) => DEPTH_ATTRIBUTES[metric.metricName]);
    const { Attributes } = await this.options.sqs.send(new GetQueueAttributesCommand({ QueueUrl: tracked.alarm.queueUrl, AttributeNames: attributes }));
    const depths = attributes.map((attribute) => {
      const depth = Number(Attributes?.[attribute]);
      if (!Number.isFinite(depth)) throw new Error(`Queue ${tracked.alarm.queueName} reported no ${attribute}`);
      return depth;
    });
    tracked.periodMax = depths.map((depth, index) => Math.max(tracked.periodMax[index] ?? depth, depth));
  }

  private async closePeriod(): Promise<unknown[]> {
    const errors = await this.sampleUnsampled();
    const now = new Date();
    for (const tracked of this.tracked.values()) {
      tracked.datapoints.push({ timestamp: tracked.periodStart, value: periodValue(tracked.periodMax) });
      tracked.datapoints.splice(0, tracked.datapoints.length - tracked.alarm.evaluationPeriods);
      tracked.periodStart = now;
      tracked.periodMax = [];
      errors.push(...(await this.transition(tracked, now)));
    }
    return errors;
  }

  /**
   * Samples the alarms whose open period has no sample yet. SQS publishes a datapoint every minute
   * for a queue in use, so a period without one is an artefact of a busy machine (the samples
   * queued behind slow ones), which the alarm would read as missing data: for a DLQ alarm that
   * treats missing data as not breaching, an OK while the queue holds messages.
   */
  private async sampleUnsampled(): Promise<unknown[]> {
    const unsampled = [...this.tracked.values()].filter((tracked) => periodValue(tracked.periodMax) === undefined);
    const results = await Promise.allSettled(unsampled.map((tracked) => this.sample(tracked)));
    return results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  }

  /** Evaluates the window; on a change of state, records it and notifies the actions. */
  private async transition(tracked: Tracked, now: Date): Promise<unknown[]> {
    const { state, reason } = evaluateAlarm(tracked.alarm, tracked.datapoints, tracked.state);
    if (state === tracked.state) return [];
    const transition = { alarmName: tracked.alarm.alarmName, oldState: tracked.state, newState: state, reason, timestamp: now.toISOString(), datapoints: [...tracked.datapoints] };
    const initial = tracked.transitions === 0;
    tracked.state = state;
    tracked.transitions += 1;
    const topics = initial && !(this.options.notifyInitialTransition ?? ALARM_EVALUATOR_DEFAULTS.notifyInitialTransition) ? [] : actionsFor(tracked.alarm, state);
    const { notified, errors } = await this.publish(tracked.alarm, { ...transition, notified: topics }, topics);
    this.transitions.push({ ...transition, notified });
    return errors;
  }

  private async publish(alarm: QueueDepthAlarm, transition: AlarmTransition, topics: readonly string[]): Promise<{ notified: string[]; errors: unknown[] }> {
    const Message = JSON.stringify(alarmNotification(alarm, transition, this.location));
    const Subject = alarmSubject(alarm.alarmName, transition.newState, this.location.region);
    const results = await Promise.allSettled(topics.map((TopicArn) => this.options.sns.send(new PublishCommand({ TopicArn, Subject, Message }))));
    return {
      notified: topics.filter((_topic, index) => results[index]?.status === 'fulfilled'),
      errors: results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])),
    };
  }
}

function track(alarm: QueueDepthAlarm, now: Date): Tracked {
  return { alarm, state: AlarmState.INSUFFICIENT_DATA, transitions: 0, datapoints: [], periodStart: now, periodMax: [] };
}

/** The period's datapoint: the sum of its metrics' Maximums, or none when a metric had no sample. */
function periodValue(maximums: readonly (number | undefined)[]): number | undefined {
  if (maximums.length === 0 || maximums.some((maximum) => maximum === undefined)) return undefined;
  return maximums.reduce<number>((total, maximum) => total + (maximum ?? 0), 0);
}

function actionsFor(alarm: QueueDepthAlarm, state: AlarmStateValue): readonly string[] {
  if (state === AlarmState.ALARM) return alarm.alarmActions;
  if (state === AlarmState.OK) return alarm.okActions;
  return alarm.insufficientDataActions ?? [];
}

function validate(options: AlarmEvaluatorOptions): void {
  if (!(options.periodMs > 0)) throw new Error(`periodMs must be > 0 (given ${options.periodMs})`);
  if (!(options.sampleIntervalMs > 0 && options.sampleIntervalMs <= options.periodMs)) {
    throw new Error(`sampleIntervalMs must be in (0, periodMs=${options.periodMs}] (given ${options.sampleIntervalMs})`);
  }
  const names = new Set<string>();
  for (const alarm of options.alarms) {
    if (names.has(alarm.alarmName)) throw new Error(`alarm names must be unique (given ${alarm.alarmName} twice)`);
    names.add(alarm.alarmName);
    validateAlarm(alarm);
  }
}

function validateAlarm(alarm: QueueDepthAlarm): void {
  const { alarmName, evaluationPeriods: n, datapointsToAlarm: m } = alarm;
  if (!Number.isInteger(n) || n < 1) throw new Error(`${alarmName}: evaluationPeriods must be an integer >= 1 (given ${n})`);
  if (!Number.isInteger(m) || m < 1 || m > n) throw new Error(`${alarmName}: datapointsToAlarm must be an integer 1..${n} (given ${m})`);
}
