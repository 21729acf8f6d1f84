import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import type { MetricKey, MetricSource } from '../metrics';
import { evaluateAlarm } from './evaluation';
import { alarmNotification, alarmSubject, type AlarmLocation } from './notification';
import { AlarmState, type AlarmStateValue, type AlarmTransition, type Datapoint, type MetricAlarm } from './types';

/** Defaults of {@link AlarmEvaluatorOptions}, named once for the code and its docs. */
export const ALARM_EVALUATOR_DEFAULTS = {
  notifyInitialTransition: true,
} as const;

/** Options of {@link AlarmEvaluator}. */
export interface AlarmEvaluatorOptions {
  readonly alarms: readonly MetricAlarm[];
  /** Where the alarms' metrics are sampled and read (local mode's {@link MetricSampler}). */
  readonly metrics: MetricSource;
  /** Publishes the notifications. */
  readonly sns: SNSClient;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
  /** How often the metrics are sampled (gauges such as a queue's depth are read then); at most `periodMs`. */
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
  readonly alarm: MetricAlarm;
  state: AlarmStateValue;
  transitions: number;
  /** Closed periods, oldest first, at most `evaluationPeriods`. */
  readonly datapoints: Datapoint[];
  periodStart: Date;
  /** The metric source's position when the open period began: its datapoints are the ones recorded since. */
  periodStartPosition: number;
}

/**
 * Evaluates CloudWatch alarms locally: samples their metrics, takes each metric's statistic per
 * period (adding them up for metric math), evaluates "M out of N" against the threshold, and on
 * every state change publishes CloudWatch's notification to the actions' topics. Alarms start in
 * INSUFFICIENT_DATA, as on AWS.
 *
 * @example
 * const evaluator = new AlarmEvaluator({ alarms, metrics: sampler, sns, sampleIntervalMs: 250, periodMs: 1000 });
 * evaluator.start();
 * // ...
 * await evaluator.stop();
 */
export class AlarmEvaluator {
  private readonly tracked: ReadonlyMap<string, Tracked>;
  /** Every metric an alarm reads. */
  private readonly watched: MetricKey[];
  private readonly transitions: AlarmTransition[] = [];
  private readonly location: AlarmLocation;
  private timers: NodeJS.Timeout[] = [];
  private work: Promise<unknown> = Promise.resolve();

  public constructor(private readonly options: AlarmEvaluatorOptions) {
    validate(options);
    const now = new Date();
    this.location = { region: options.region ?? LOCAL_REGION, accountId: options.accountId ?? LOCAL_ACCOUNT_ID, configuredAt: now };
    this.tracked = new Map(options.alarms.map((alarm) => [alarm.alarmName, track(alarm, now, options.metrics.position())]));
    this.watched = options.alarms.flatMap((alarm) => alarm.metrics.map((metric) => metric.key));
  }

  /** Samples every `sampleIntervalMs` and closes a period every `periodMs`; the timers do not hold the process open. */
  public start(): void {
    if (this.timers.length > 0) return;
    for (const tracked of this.tracked.values()) {
      tracked.periodStart = new Date();
      tracked.periodStartPosition = this.options.metrics.position();
    }
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
   * queues by receiving their messages under an alarm on visible messages alone: the evaluator
   * would take the moment they are invisible for an empty queue, and flip the alarm to OK.
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

  /** Samples every alarm's metrics (the counters, and the gauges the alarms watch). */
  private sampleAll(): Promise<unknown[]> {
    return this.options.metrics.sample(this.watched);
  }

  private async closePeriod(): Promise<unknown[]> {
    const errors = await this.sampleUnsampled();
    const now = new Date();
    const end = this.options.metrics.position();
    for (const tracked of this.tracked.values()) {
      tracked.datapoints.push({ timestamp: tracked.periodStart, value: this.periodValue(tracked, end) });
      tracked.datapoints.splice(0, tracked.datapoints.length - tracked.alarm.evaluationPeriods);
      tracked.periodStart = now;
      tracked.periodStartPosition = end;
      errors.push(...(await this.transition(tracked, now)));
    }
    return errors;
  }

  /**
   * The period's datapoint: the statistic of its one metric, or the sum of its metrics'
   * statistics for metric math; none when a metric has no datapoint in it. A period holds what
   * was recorded after it began and up to position `end`, so that a datapoint recorded in the
   * millisecond a period closes belongs to exactly one period.
   */
  private periodValue(tracked: Tracked, end: number): number | undefined {
    const values = tracked.alarm.metrics.map((metric) => this.options.metrics.statisticBetween(metric.key, metric.statistic, tracked.periodStartPosition, end));
    if (values.length === 0 || values.some((value) => value === undefined)) return undefined;
    return values.reduce<number>((total, value) => total + (value ?? 0), 0);
  }

  /**
   * Samples the metrics of the alarms whose open period has no datapoint yet. SQS publishes a
   * datapoint every minute for a queue in use, so a period without one is an artefact of a busy
   * machine (the samples queued behind slow ones), which the alarm would read as missing data: for
   * a DLQ alarm that treats missing data as not breaching, an OK while the queue holds messages.
   * (A counter that did not grow still has none after this: an idle source publishes nothing.)
   */
  private async sampleUnsampled(): Promise<unknown[]> {
    const end = this.options.metrics.position();
    const unsampled = [...this.tracked.values()].filter((tracked) => this.periodValue(tracked, end) === undefined);
    if (unsampled.length === 0) return [];
    return this.options.metrics.sample(unsampled.flatMap((tracked) => tracked.alarm.metrics.map((metric) => metric.key)));
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

  private async publish(alarm: MetricAlarm, transition: AlarmTransition, topics: readonly string[]): Promise<{ notified: string[]; errors: unknown[] }> {
    const Message = JSON.stringify(alarmNotification(alarm, transition, this.location));
    const Subject = alarmSubject(alarm.alarmName, transition.newState, this.location.region);
    const results = await Promise.allSettled(topics.map((TopicArn) => this.options.sns.send(new PublishCommand({ TopicArn, Subject, Message }))));
    return {
      notified: topics.filter((_topic, index) => results[index]?.status === 'fulfilled'),
      errors: results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : [])),
    };
  }
}

function track(alarm: MetricAlarm, now: Date, position: number): Tracked {
  return { alarm, state: AlarmState.INSUFFICIENT_DATA, transitions: 0, datapoints: [], periodStart: now, periodStartPosition: position };
}

function actionsFor(alarm: MetricAlarm, state: AlarmStateValue): readonly string[] {
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

function validateAlarm(alarm: MetricAlarm): void {
  const { alarmName, evaluationPeriods: n, datapointsToAlarm: m } = alarm;
  if (!Number.isInteger(n) || n < 1) throw new Error(`${alarmName}: evaluationPeriods must be an integer >= 1 (given ${n})`);
  if (!Number.isInteger(m) || m < 1 || m > n) throw new Error(`${alarmName}: datapointsToAlarm must be an integer 1..${n} (given ${m})`);
  if (alarm.metrics.length === 0) throw new Error(`${alarmName}: an alarm needs at least one metric`);
}
