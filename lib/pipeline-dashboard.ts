/**
 * One CloudWatch dashboard over a pipeline's consumers: what an on-call engineer opens after an
 * alarm (docs/operations.md, "The dashboard"). Per consumer, a header and two rows:
 *
 * - deliveries (the mapping's polled and invoked events), effects and duplicates (the runtime's
 *   `EventsProcessed`, `DuplicatesSkipped`, `ConflictingDuplicates`), failures and DLQ sends
 *   (`TransientFailures`, `PermanentFailures`, `SentToDlq`), the DLQ's held messages;
 * - the backlog (a queue's oldest message age, a stream consumer's iterator age), the function's
 *   errors and throttles, and the state of every alarm of the consumer.
 *
 * The counts are Sums per minute and the depths and ages Maximums per minute, as the alarms read
 * them, so a graph shows what its alarm saw.
 */
import { mappingMetric, runtimeMetric } from './consumer-metrics';
import { Duration } from 'aws-cdk-lib';
import { Alarm, AlarmStatusWidget, Dashboard, GraphWidget, type IAlarm, type IMetric, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { MetricName } from '../aws/metrics';
import { heldMessages } from './dlq-alarm';
import { DynamoStreamConsumer } from './dynamo-stream-consumer';
import type { KinesisConsumer } from './kinesis-consumer';
import { QueueConsumer } from './queue-consumer';

/** A consumer that {@link PipelineDashboard} draws. */
export type PipelineConsumer = QueueConsumer | KinesisConsumer | DynamoStreamConsumer;

/** Props of {@link PipelineDashboard}. */
export interface PipelineDashboardProps {
  /**
   * The dashboard's name: letters, digits, `-` and `_`, unique in the account and region.
   * @default - a name CloudFormation generates
   */
  readonly dashboardName?: string;
  /** The consumers to draw, top to bottom: at least one, each once, no two of one name (the name titles its widgets). */
  readonly consumers: readonly PipelineConsumer[];
}

/** The widgets' sizes in CloudWatch's grid, which is 24 units wide. */
const SIZE = { headerHeight: 2, graphHeight: 6, countWidth: 6, wideWidth: 8, rowWidth: 24 } as const;

const PERIOD = Duration.minutes(1);

/** A dashboard with a header and two rows of widgets per consumer (see the module's comment). */
export class PipelineDashboard extends Construct {
  /** The CloudWatch dashboard. */
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: PipelineDashboardProps) {
    super(scope, id);
    validatePipelineDashboardProps(props);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    props.consumers.forEach((consumer, index) => this.addConsumer(consumer, index));
  }

  private addConsumer(consumer: PipelineConsumer, index: number): void {
    this.dashboard.addWidgets(header(consumer));
    this.dashboard.addWidgets(deliveries(consumer), effects(consumer), failures(consumer), dlqHeld(consumer));
    this.dashboard.addWidgets(backlog(consumer), functionHealth(consumer), alarmStatus(consumer, this.alarmsByName(consumer, index)));
  }

  /**
   * The consumer's alarms, each referred to by an ARN made of its name (its `Ref`) rather than by
   * `Fn::GetAtt Arn`: the same ARN on AWS, but moto's CloudFormation, which the deploy test runs
   * on, creates no alarms and fails a whole stack that takes an attribute of one (a `Ref` to one
   * resolves). The imported alarms are references only: they add nothing to the template.
   */
  private alarmsByName(consumer: PipelineConsumer, index: number): IAlarm[] {
    const scope = new Construct(this, `Consumer${index}Alarms`);
    return alarmsOf(consumer).map((alarm, i) => Alarm.fromAlarmName(scope, `Alarm${i}`, alarm.alarmName));
  }
}

/**
 * Checks the props: at least one consumer, none twice, no two of one name.
 * @throws Error naming the consumers at fault
 */
function validatePipelineDashboardProps(props: PipelineDashboardProps): void {
  if (props.consumers.length === 0) throw new Error('consumers must list at least one consumer (given none): the dashboard would be empty');
  const byName = new Map<string, PipelineConsumer>();
  for (const consumer of props.consumers) {
    const seen = byName.get(titleOf(consumer));
    if (seen === consumer) throw new Error(`consumers must list each consumer once (given ${consumer.node.path} twice)`);
    if (seen) {
      throw new Error(`consumers must have distinct names, which title their widgets (given ${seen.node.path} and ${consumer.node.path}, both named ${titleOf(consumer)})`);
    }
    byName.set(titleOf(consumer), consumer);
  }
}

/** What titles a consumer's widgets: its name, and its generation from 2 on (a rebuild beside the live one). */
function titleOf(consumer: PipelineConsumer): string {
  return consumer.generation === 1 ? consumer.consumerName : `${consumer.consumerName} (generation ${consumer.generation})`;
}

/** The consumer's name, its source's kind and its service name, across the grid. */
function header(consumer: PipelineConsumer): TextWidget {
  const markdown = `### ${titleOf(consumer)}\n${sourceKind(consumer)} consumer; the runtime's metrics are those of service \`${consumer.serviceName}\`.`;
  return new TextWidget({ markdown, width: SIZE.rowWidth, height: SIZE.headerHeight });
}

function sourceKind(consumer: PipelineConsumer): string {
  if (consumer instanceof QueueConsumer) return consumer.queue.fifo ? 'SQS FIFO queue' : 'SQS queue';
  return consumer instanceof DynamoStreamConsumer ? 'DynamoDB stream' : 'Kinesis stream';
}

function deliveries(consumer: PipelineConsumer): GraphWidget {
  return countGraph(consumer, 'deliveries', [
    mappingMetric('PolledEventCount', consumer.mappingUuid, 'polled'),
    mappingMetric('InvokedEventCount', consumer.mappingUuid, 'invoked'),
  ]);
}

function effects(consumer: PipelineConsumer): GraphWidget {
  return countGraph(consumer, 'effects and duplicates', [
    runtimeMetric(MetricName.PROCESSED, consumer.serviceName, 'effects applied'),
    runtimeMetric(MetricName.DUPLICATES, consumer.serviceName, 'duplicates dropped'),
    runtimeMetric(MetricName.CONFLICTING_DUPLICATES, consumer.serviceName, 'conflicting duplicates'),
  ]);
}

function failures(consumer: PipelineConsumer): GraphWidget {
  return countGraph(consumer, 'failures and DLQ sends', [
    runtimeMetric(MetricName.TRANSIENT_FAILURES, consumer.serviceName, 'transient (retried)'),
    runtimeMetric(MetricName.PERMANENT_FAILURES, consumer.serviceName, 'permanent'),
    runtimeMetric(MetricName.SENT_TO_DLQ, consumer.serviceName, 'sent to DLQ'),
  ]);
}

/** The DLQ's messages held (visible + in flight), the sum its depth alarm watches (lib/dlq-alarm.ts). */
function dlqHeld(consumer: PipelineConsumer): GraphWidget {
  return countGraph(consumer, 'DLQ held', [heldMessages(consumer.deadLetterQueue, 'held (visible + in flight)')]);
}

/** How far behind the consumer is, with its alarm's threshold when it has one. */
function backlog(consumer: PipelineConsumer): GraphWidget {
  if (consumer instanceof QueueConsumer) {
    const age = consumer.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD, label: 'oldest message age' });
    return wideGraph(consumer, 'oldest message age (seconds)', [age], consumer.consumerAlarms.alarms.oldestMessageAge);
  }
  const age = consumer.function.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: 'iterator age' });
  return wideGraph(consumer, 'iterator age (milliseconds)', [age], consumer.iteratorAgeAlarm.alarm);
}

function functionHealth(consumer: PipelineConsumer): GraphWidget {
  return wideGraph(consumer, 'function errors and throttles', [
    consumer.function.metricErrors({ statistic: 'Sum', period: PERIOD, label: 'errors' }),
    consumer.function.metricThrottles({ statistic: 'Sum', period: PERIOD, label: 'throttles' }),
  ]);
}

function alarmStatus(consumer: PipelineConsumer, alarms: IAlarm[]): AlarmStatusWidget {
  return new AlarmStatusWidget({ title: `${titleOf(consumer)}: alarms`, alarms, width: SIZE.wideWidth, height: SIZE.graphHeight });
}

/** Every alarm of the consumer: its DLQ's, its own, its iterator age's and its failure archive's. */
function alarmsOf(consumer: PipelineConsumer): IAlarm[] {
  const own = Object.values(consumer.consumerAlarms.alarms).filter((alarm): alarm is NonNullable<typeof alarm> => alarm !== undefined);
  const alarms: IAlarm[] = [consumer.dlqAlarm.alarm, ...own];
  if (consumer instanceof QueueConsumer) return alarms;
  alarms.push(consumer.iteratorAgeAlarm.alarm);
  if (consumer.failureArchive) alarms.push(consumer.failureArchive.index.alarm.alarm);
  return alarms;
}

/** A graph of counts: a quarter of a row. */
function countGraph(consumer: PipelineConsumer, what: string, metrics: IMetric[]): GraphWidget {
  return new GraphWidget({ title: `${titleOf(consumer)}: ${what}`, left: metrics, width: SIZE.countWidth, height: SIZE.graphHeight });
}

/** A third of a row, with `alarm`'s threshold drawn when given. */
function wideGraph(consumer: PipelineConsumer, what: string, metrics: IMetric[], alarm?: Alarm): GraphWidget {
  return new GraphWidget({ title: `${titleOf(consumer)}: ${what}`, left: metrics, leftAnnotations: alarm && [alarm.toAnnotation()], width: SIZE.wideWidth, height: SIZE.graphHeight });
}

