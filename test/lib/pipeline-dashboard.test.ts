/**
 * The pipeline dashboard, read from the example stack's template: its body is an `Fn::Join` of
 * JSON text and tokens, parsed here with each token as a placeholder naming its logical id
 * (`<Ref:X>`, `<GetAtt:X.Attr>`). Each consumer has widgets titled with its name that graph its
 * mapping's deliveries, the runtime's counts for its service, its DLQ's held messages, its
 * backlog, its function's errors and throttles, and an alarm status widget of exactly its alarms
 * (each by an ARN made of its name, not `Fn::GetAtt Arn`: see `alarmsByName` in the construct).
 * Then the props: refused, named, and the alarms of a failure archive.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { StreamViewType, Table, AttributeType } from 'aws-cdk-lib/aws-dynamodb';
import { DynamoStreamConsumer, KinesisConsumer, PipelineDashboard, QueueConsumer } from '../../lib';
import { type AddConsumer, EventPipelineStack } from '../../example';
import { FIXTURE_HANDLER, logicalId, testApp, testStack } from './support';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** A widget of the dashboard body, as CloudWatch reads it. */
interface Widget {
  readonly type: string;
  readonly width: number;
  readonly height: number;
  readonly x: number;
  readonly y: number;
  readonly properties: { readonly title?: string; readonly markdown?: string; readonly metrics?: unknown[][]; readonly alarms?: string[] };
}

/** A token of the body as a placeholder: `<Ref:X>`, `<GetAtt:X.Attr>`. */
function placeholder(token: unknown): string {
  const ref = (token as { Ref?: string }).Ref;
  if (typeof ref === 'string') return `<Ref:${ref}>`;
  const getAtt = (token as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (getAtt) return `<GetAtt:${getAtt[0]}.${getAtt[1]}>`;
  throw new Error(`unexpected token in the dashboard body: ${JSON.stringify(token)}`);
}

/** Whether JSON text ends inside a string literal (an odd number of unescaped quotes). */
function endsInString(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && inString) i++;
    else if (text[i] === '"') inString = !inString;
  }
  return inString;
}

/** The dashboard body as JSON: a token inside a string becomes its placeholder text, one outside a quoted placeholder. */
function parseBody(body: unknown): { widgets: Widget[] } {
  if (typeof body === 'string') return JSON.parse(body) as { widgets: Widget[] };
  const [separator, parts] = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else text += endsInString(text) ? placeholder(part) : JSON.stringify(placeholder(part));
    text += separator;
  }
  return JSON.parse(text.slice(0, text.length - separator.length)) as { widgets: Widget[] };
}

/** A metric line as text: `AWS/Lambda Errors FunctionName=<Ref:X> Sum`, `expression visible + inFlight`, with ` id=<id>` when it has one. */
function metricLine(line: unknown[]): string {
  const last = line[line.length - 1];
  const options = (typeof last === 'object' && last !== null ? last : {}) as { expression?: string; stat?: string; id?: string };
  const id = options.id === undefined ? '' : ` id=${options.id}`;
  if (options.expression !== undefined) return `expression ${options.expression}${id}`;
  const [namespace, metricName, ...rest] = line.filter((part) => typeof part === 'string') as string[];
  const dimensions = rest.flatMap((part, i) => (i % 2 === 0 ? [`${part}=${rest[i + 1]}`] : []));
  return `${namespace} ${metricName} ${dimensions.join(',')} ${String(options.stat)}${id}`;
}

const metricLines = (widget: Widget): string[] => (widget.properties.metrics ?? []).map(metricLine);

/** The ARN an alarm status widget names the alarm of logical id `id` by. */
const alarmArn = (id: string): string => `arn:<Ref:AWS::Partition>:cloudwatch:<Ref:AWS::Region>:<Ref:AWS::AccountId>:alarm:<Ref:${id}>`;

const stack = new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [] });
const assertions = Template.fromStack(stack);
const template = assertions.toJSON() as { Resources: Resources; Outputs: Record<string, { Value: unknown }> };
const ofType = (type: string) => Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
const dashboards = ofType('AWS::CloudWatch::Dashboard');
const widgets = parseBody(dashboards[0]?.[1].Properties.DashboardBody).widgets;

/** The consumers of the example stack: construct id, consumer name, source kind. */
const CONSUMERS: [string, string, 'queue' | 'stream'][] = [
  ['PageViewCounter', 'page-view-counter', 'queue'],
  ['OrderProjection', 'order-projection', 'stream'],
  // The order projection's rebuilt generation: its widgets titled with its generation.
  ['OrderProjectionRebuild', 'order-projection (generation 2)', 'stream'],
  ['ShipmentNotifier', 'shipment-notifier', 'stream'],
  ['AccountLedger', 'account-ledger', 'queue'],
  ['InvoicePayments', 'invoice-payments', 'queue'],
];

/** What the template says about one consumer: its logical ids and its service name. */
function consumerResources(constructId: string) {
  const fn = logicalId(assertions, 'AWS::Lambda::Function', `${constructId}Function`);
  const environment = template.Resources[fn]?.Properties.Environment as { Variables: Record<string, string> };
  return {
    fn,
    mapping: logicalId(assertions, 'AWS::Lambda::EventSourceMapping', `${constructId}Function`),
    dlq: logicalId(assertions, 'AWS::SQS::Queue', `${constructId}Dlq`),
    service: environment.Variables.POWERTOOLS_SERVICE_NAME,
    alarms: ofType('AWS::CloudWatch::Alarm').map(([id]) => id).filter((id) => ownerOf(id) === constructId),
  };
}

/** The consumer whose construct id is the longest that starts the logical id (`OrderProjectionRebuild...` is not `OrderProjection`'s). */
function ownerOf(id: string): string | undefined {
  return CONSUMERS.map(([constructId]) => constructId).filter((constructId) => id.startsWith(constructId)).sort((a, b) => b.length - a.length)[0];
}

describe('the example stack', () => {
  test('has exactly one dashboard, named after the stack, and outputs its name', () => {
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]?.[1].Properties.DashboardName).toBe('EffectivelyOnce');
    expect(template.Outputs.DashboardName?.Value).toBe('EffectivelyOnce');
    expect(stack.dashboard.dashboard).toBeDefined();
  });

  test('takes no attribute of an alarm: moto\'s CloudFormation, which the deploy test runs on, creates no alarms and fails such a stack', () => {
    const alarms = new Set(ofType('AWS::CloudWatch::Alarm').map(([id]) => id));
    const attributesOf = (JSON.stringify(widgets).match(/<GetAtt:[^.>]+/g) ?? []).map((token) => token.slice('<GetAtt:'.length));
    expect(attributesOf.length).toBeGreaterThan(0);
    expect(attributesOf.filter((id) => alarms.has(id))).toEqual([]);
  });

  test('draws the consumers top to bottom in the stack\'s order, each under a header naming it', () => {
    const headers = widgets.filter((widget) => widget.type === 'text').sort((a, b) => a.y - b.y);
    expect(headers.map((widget) => widget.properties.markdown?.split('\n')[0])).toEqual(CONSUMERS.map(([, name]) => `### ${name}`));
    expect(headers.every((widget) => widget.width === 24)).toBe(true);
  });

  test('every widget fits the 24-column grid and none overlaps another', () => {
    for (const widget of widgets) expect(widget.x + widget.width).toBeLessThanOrEqual(24);
    const cells = widgets.flatMap((widget) => Array.from({ length: widget.width * widget.height }, (_, i) => `${widget.x + (i % widget.width)},${widget.y + Math.floor(i / widget.width)}`));
    expect(new Set(cells).size).toBe(cells.length);
  });

  test('every graph and alarm widget is titled with its consumer\'s name', () => {
    const names = CONSUMERS.map(([, name]) => name);
    for (const widget of widgets.filter((candidate) => candidate.type !== 'text')) {
      expect({ title: widget.properties.title, named: names.some((name) => widget.properties.title?.startsWith(`${name}: `)) }).toEqual({ title: widget.properties.title, named: true });
    }
  });
});

describe.each(CONSUMERS)('the widgets of %s (%s)', (constructId, name, kind) => {
  const own = widgets.filter((widget) => widget.properties.title?.startsWith(`${name}: `));
  const lines = own.flatMap(metricLines);
  const resources = consumerResources(constructId);

  test('graph its mapping\'s polled and invoked events', () => {
    expect(lines).toContain(`AWS/Lambda PolledEventCount EventSourceMappingUUID=<Ref:${resources.mapping}> Sum`);
    expect(lines).toContain(`AWS/Lambda InvokedEventCount EventSourceMappingUUID=<Ref:${resources.mapping}> Sum`);
  });

  test.each(['EventsProcessed', 'DuplicatesSkipped', 'ConflictingDuplicates', 'TransientFailures', 'PermanentFailures', 'SentToDlq'])('graph the runtime\'s %s of its service', (metric) => {
    expect(lines).toContain(`EffectivelyOnce ${metric} service=${resources.service} Sum`);
  });

  test('graph its DLQ\'s held messages, visible + in flight, in one widget', () => {
    const held = own.find((widget) => metricLines(widget).includes('expression visible + inFlight'));
    expect(held && metricLines(held).sort()).toEqual([
      `AWS/SQS ApproximateNumberOfMessagesNotVisible QueueName=<GetAtt:${resources.dlq}.QueueName> Maximum id=inFlight`,
      `AWS/SQS ApproximateNumberOfMessagesVisible QueueName=<GetAtt:${resources.dlq}.QueueName> Maximum id=visible`,
      'expression visible + inFlight',
    ]);
  });

  test(kind === 'queue' ? 'graph its queue\'s oldest message age' : 'graph its function\'s iterator age', () => {
    const queue = kind === 'queue' ? logicalId(assertions, 'AWS::SQS::Queue', `${constructId}Queue`) : '';
    const expected = kind === 'queue' ? `AWS/SQS ApproximateAgeOfOldestMessage QueueName=<GetAtt:${queue}.QueueName> Maximum` : `AWS/Lambda IteratorAge FunctionName=<Ref:${resources.fn}> Maximum`;
    expect(lines).toContain(expected);
  });

  test('graph its function\'s errors and throttles', () => {
    expect(lines).toContain(`AWS/Lambda Errors FunctionName=<Ref:${resources.fn}> Sum`);
    expect(lines).toContain(`AWS/Lambda Throttles FunctionName=<Ref:${resources.fn}> Sum`);
  });

  test('show the state of exactly its alarms', () => {
    const status = own.filter((widget) => widget.type === 'alarm');
    expect(status).toHaveLength(1);
    expect([...(status[0]?.properties.alarms ?? [])].sort()).toEqual(resources.alarms.map(alarmArn).sort());
    expect(resources.alarms).toHaveLength(kind === 'queue' ? 6 : 7);
  });

  test('name only its own resources', () => {
    const named = JSON.stringify(own).match(/<(Ref|GetAtt):[^>]+>/g) ?? [];
    expect(named.filter((token) => !token.startsWith('<Ref:AWS::') && !token.includes(`:${constructId}`))).toEqual([]);
  });
});

describe('the consumers an AddConsumer adds', () => {
  const bodyWith = (consumers: readonly AddConsumer[]) => {
    const [[, dashboard] = []] = Object.entries(Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers })).toJSON().Resources as Resources).filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Dashboard');
    return parseBody(dashboard?.Properties.DashboardBody).widgets;
  };
  const auditTrail: AddConsumer = (pipeline) =>
    new QueueConsumer(pipeline, 'AuditTrail', { consumerName: 'audit-trail', entry: FIXTURE_HANDLER, alarmTopic: pipeline.alarmTopic.topic, tables: { IDEMPOTENCY_TABLE: pipeline.idempotencyTable.table } });

  test('are drawn after the examples when it returns the consumer construct', () => {
    const headers = bodyWith([auditTrail]).filter((widget) => widget.type === 'text').sort((a, b) => a.y - b.y);
    expect(headers.map((widget) => widget.properties.markdown?.split('\n')[0])).toEqual([...CONSUMERS.map(([, name]) => `### ${name}`), '### audit-trail']);
  });

  test('are not drawn when it returns something else', () => {
    const headers = bodyWith([(pipeline) => void auditTrail(pipeline)]).filter((widget) => widget.type === 'text');
    expect(headers).toHaveLength(CONSUMERS.length);
  });
});

describe('the props', () => {
  const setup = () => {
    const { stack: scope, alarmTopic } = testStack();
    const queueConsumer = (id: string, consumerName: string) => new QueueConsumer(scope, id, { consumerName, entry: FIXTURE_HANDLER, alarmTopic });
    return { scope, alarmTopic, queueConsumer };
  };
  const dashboardOf = (scope: ReturnType<typeof setup>['scope']) => {
    const [[, dashboard] = []] = Object.entries(Template.fromStack(scope).toJSON().Resources as Resources).filter(([, resource]) => resource.Type === 'AWS::CloudWatch::Dashboard');
    return dashboard;
  };

  test('refuses an empty consumer list', () => {
    const { scope } = setup();
    expect(() => new PipelineDashboard(scope, 'Dashboard', { consumers: [] })).toThrow('consumers must list at least one consumer (given none)');
  });

  test('refuses a consumer listed twice, naming it', () => {
    const { scope, queueConsumer } = setup();
    const counter = queueConsumer('Counter', 'page-view-counter');
    expect(() => new PipelineDashboard(scope, 'Dashboard', { consumers: [counter, counter] })).toThrow('consumers must list each consumer once (given Test/Counter twice)');
  });

  test('refuses two consumers of one name, naming both', () => {
    const { scope, queueConsumer } = setup();
    const consumers = [queueConsumer('One', 'page-view-counter'), queueConsumer('Two', 'page-view-counter')];
    expect(() => new PipelineDashboard(scope, 'Dashboard', { consumers })).toThrow('consumers must have distinct names, which title their widgets (given Test/One and Test/Two, both named page-view-counter)');
  });

  test('names the dashboard when asked, and leaves the name to CloudFormation otherwise', () => {
    const named = setup();
    new PipelineDashboard(named.scope, 'Dashboard', { dashboardName: 'pipeline-ops', consumers: [named.queueConsumer('Counter', 'page-view-counter')] });
    expect(dashboardOf(named.scope)?.Properties.DashboardName).toBe('pipeline-ops');
    const unnamed = setup();
    new PipelineDashboard(unnamed.scope, 'Dashboard', { consumers: [unnamed.queueConsumer('Counter', 'page-view-counter')] });
    expect(dashboardOf(unnamed.scope)?.Properties.DashboardName).toBeUndefined();
  });

  test('graphs the runtime\'s metrics under the serviceName prop when it is given', () => {
    const { scope, alarmTopic } = setup();
    const consumer = new KinesisConsumer(scope, 'Orders', { consumerName: 'order-projection', serviceName: 'orders', entry: FIXTURE_HANDLER, alarmTopic });
    new PipelineDashboard(scope, 'Dashboard', { consumers: [consumer] });
    const lines = parseBody(dashboardOf(scope)?.Properties.DashboardBody).widgets.flatMap(metricLines);
    expect(consumer.serviceName).toBe('orders');
    expect(lines).toContain('EffectivelyOnce EventsProcessed service=orders Sum');
    expect(lines.filter((line) => line.includes('service=order-projection'))).toEqual([]);
  });

  test('lists a failure archive\'s alarm, and no alarm that was turned off', () => {
    const { scope, alarmTopic } = setup();
    const table = new Table(scope, 'Orders', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_AND_OLD_IMAGES });
    const consumer = new DynamoStreamConsumer(scope, 'Notifier', { consumerName: 'shipment-notifier', entry: FIXTURE_HANDLER, alarmTopic, table, onFailure: 's3', alarms: { throttles: false } });
    new PipelineDashboard(scope, 'Dashboard', { consumers: [consumer] });
    const resources = Template.fromStack(scope);
    const status = parseBody(dashboardOf(scope)?.Properties.DashboardBody).widgets.find((widget) => widget.type === 'alarm');
    const alarms = Object.keys(resources.findResources('AWS::CloudWatch::Alarm')).filter((id) => id.startsWith('Notifier'));
    expect(alarms.some((id) => id.startsWith('NotifierFailureArchive'))).toBe(true);
    expect(alarms.some((id) => id.includes('Throttles'))).toBe(false);
    expect([...(status?.properties.alarms ?? [])].sort()).toEqual(alarms.map(alarmArn).sort());
  });
});
