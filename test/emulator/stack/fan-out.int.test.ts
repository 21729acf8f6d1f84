/**
 * Fan-out into a consumer's queue on the local engines, with the synthesized stack's bundles: SNS
 * deliveries made by fauxqs for real (raw, and wrapped in SNS's notification JSON), EventBridge
 * events put on the rule's target queue as the rule would (there is no EventBridge engine), and a
 * producer's retried publish counted once. A subscription or target whose queue policy does not
 * let the service send is refused up front, since AWS would accept it and drop every delivery. A
 * stream mapping whose on-failure bucket its function's role may not write to is refused too: it
 * would lose every batch it gives up on (failure-archive.int.test.ts runs one that may).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEnvelope, outgoingMessage, publishToSns, readCounter } from '../../../lambdas/runtime';
import { CONSUMER_ENV } from '../../../aws/consumer-env';
import { EnvelopeFormat } from '../../../aws/envelope-formats';
import type { FailureEnvelope } from '../../../aws/dlq-format';
import { peekAll } from '../../../aws/sqs/peek';
import { PAGE_VIEW_COUNTER_SHARDS } from '../../../example/counter-shards';
import type { SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { deliverEventBridgeEvent } from '../../../emulator/stack/fan-out';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import { ResourceType, resourcesOfType, type Template } from '../../../aws/cloudformation/template';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { copyAssembly, editedAssembly, useAssemblyCopies } from './assembly-copy';

useAssemblyCopies();

let stack: LocalStack | undefined;
let refusals: string[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  refusals = [];
});


async function start(synthesized: SynthesizedStack = copyAssembly()): Promise<LocalStack> {
  stack = await startLocalStack({ engines: sharedEngines(), synthesized, nameSuffix: `-${uniqueName('fan')}`, onRefusal: (line) => refusals.push(line) });
  return stack;
}

function logicalIdOf(template: Template, type: string, prefix: string): string {
  const found = resourcesOfType(template, type).find((resource) => resource.logicalId.startsWith(prefix));
  if (!found) throw new Error(`no ${type} whose logical id starts with ${prefix}`);
  return found.logicalId;
}

/** The page-view counter's queue policy statements, for editing. */
function queuePolicyStatements(template: Template): { Principal?: { Service?: string }; Condition?: unknown; Action?: unknown }[] {
  const queue = logicalIdOf(template, ResourceType.QUEUE, 'PageViewCounterQueue');
  const policy = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::SQS::QueuePolicy' && JSON.stringify(resource.Properties?.Queues) === JSON.stringify([{ Ref: queue }]));
  return (policy?.Properties?.PolicyDocument as { Statement: { Principal?: { Service?: string } }[] }).Statement;
}

function withoutServiceStatement(service: string) {
  return (template: Template): void => {
    const statements = queuePolicyStatements(template);
    statements.splice(0, statements.length, ...statements.filter((statement) => statement.Principal?.Service !== service));
  };
}

function setCounterEnvironment(template: Template, variables: Record<string, string>): void {
  const fn = template.Resources[logicalIdOf(template, ResourceType.FUNCTION, 'PageViewCounter')];
  const environment = fn?.Properties?.Environment as { Variables: Record<string, unknown> };
  Object.assign(environment.Variables, variables);
}

function subscriptionOf(template: Template): Record<string, unknown> {
  const subscription = resourcesOfType(template, ResourceType.SUBSCRIPTION).find((resource) => resource.properties.Protocol === 'sqs');
  if (!subscription) throw new Error('no sqs subscription in the template');
  return template.Resources[subscription.logicalId]?.Properties as Record<string, unknown>;
}

/** An EventBridge rule targeting the counter's queue, and the queue policy statement that lets it send (as `addEventBridgeRule` writes them). */
function withEventBridgeRule(options: { policy: boolean }) {
  return (template: Template): void => {
    const queue = logicalIdOf(template, ResourceType.QUEUE, 'PageViewCounterQueue');
    template.Resources.PageViewsRule = { Type: 'AWS::Events::Rule', Properties: { EventPattern: { source: ['com.example.web'] }, State: 'ENABLED', Targets: [{ Arn: { 'Fn::GetAtt': [queue, 'Arn'] }, Id: 'Target0' }] } };
    if (options.policy) {
      queuePolicyStatements(template).push({ Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' }, Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': ['PageViewsRule', 'Arn'] } } }, ...{ Effect: 'Allow', Resource: { 'Fn::GetAtt': [queue, 'Arn'] } } });
    }
    setCounterEnvironment(template, { [CONSUMER_ENV.envelope]: EnvelopeFormat.EVENTBRIDGE });
  };
}

function pageView(pageId: string) {
  return createEnvelope({ type: 'page.viewed', businessKey: uniqueName(pageId), source: 'test', payload: { pageId } });
}

async function views(local: LocalStack, pageId: string, expected: number): Promise<number> {
  const read = () => readCounter(local.clients.dynamodb, { table: output(local.outputs, 'CountersTableName'), key: { pk: `page#${pageId}` }, attribute: 'views', shards: PAGE_VIEW_COUNTER_SHARDS, consistent: true });
  await pollUntil(async () => ((await read()) >= expected ? true : undefined), `${expected} views of ${pageId}`, { timeoutMs: 30_000, intervalMs: 250 });
  await local.drain({ quietMs: 1_500, maxMs: 30_000 });
  return read();
}

async function dlqFailures(local: LocalStack, count: number): Promise<FailureEnvelope[]> {
  const url = output(local.outputs, 'PageViewCounterDlqUrl');
  return pollUntil(async () => {
    const found = (await peekAll(local.clients.sqs, url)).map((message) => JSON.parse(message.Body ?? '{}') as FailureEnvelope);
    return found.length >= count ? found : undefined;
  }, `${count} failures in the counter's DLQ`, { timeoutMs: 30_000, intervalMs: 250 });
}

describe('SNS to the counter queue', () => {
  test('raw delivery, as the example stack has it: a producer retry of a publish (a new SNS MessageId) counts once', async () => {
    const local = await start();
    expect(local.fanOut.refused).toEqual([]);
    expect(local.fanOut.subscriptions).toEqual([expect.objectContaining({ rawMessageDelivery: true, topicArn: output(local.outputs, 'PageViewsTopicArn') })]);
    const event = pageView('fan-raw');
    await publishToSns(local.clients.sns, output(local.outputs, 'PageViewsTopicArn'), [outgoingMessage(event), outgoingMessage(event)]);
    expect(await views(local, 'fan-raw', 1)).toBe(1);
  }, 90_000);

  test('raw delivery off: the counter unwraps the notification JSON, dedups on the inner eventId, and sends a broken inner message to its DLQ with context', async () => {
    const local = await start(editedAssembly((template) => {
      subscriptionOf(template).RawMessageDelivery = false;
      setCounterEnvironment(template, { [CONSUMER_ENV.envelope]: EnvelopeFormat.SNS });
    }));
    expect(local.fanOut.subscriptions).toEqual([expect.objectContaining({ rawMessageDelivery: false })]);
    const topicArn = output(local.outputs, 'PageViewsTopicArn');
    const event = pageView('fan-wrapped');
    await publishToSns(local.clients.sns, topicArn, [outgoingMessage(event), outgoingMessage(event), { body: 'not json at all' }]);
    expect(await views(local, 'fan-wrapped', 1)).toBe(1);
    const [failure] = await dlqFailures(local, 1);
    expect(failure?.error.name).toBe('InvalidEnvelopeError');
    expect(failure?.error.message).toMatch(/Message/);
    // The context keeps the whole SNS notification, so that a redrive sends back what SNS delivered.
    expect(JSON.parse(failure?.original.body ?? '{}')).toMatchObject({ Type: 'Notification', TopicArn: topicArn, Message: 'not json at all' });
  }, 90_000);

  test('a queue policy without the SNS statement: the subscription is refused up front, naming the fix, and nothing is delivered', async () => {
    const local = await start(editedAssembly(withoutServiceStatement('sns.amazonaws.com')));
    expect(local.fanOut.subscriptions).toEqual([]);
    expect(local.fanOut.refused).toEqual([expect.objectContaining({ service: 'sns.amazonaws.com', sourceArn: output(local.outputs, 'PageViewsTopicArn') })]);
    expect(refusals.join('\n')).toMatch(/sns\.amazonaws\.com may not send .* AWS would accept .* and drop every delivery/);
    await publishToSns(local.clients.sns, output(local.outputs, 'PageViewsTopicArn'), [outgoingMessage(pageView('fan-dropped'))]);
    await sleep(1_500);
    expect(await peekAll(local.clients.sqs, output(local.outputs, 'PageViewsQueueUrl'))).toEqual([]);
  }, 90_000);
});

describe('EventBridge to the counter queue', () => {
  /** The EventBridge User Guide's event structure, carrying our envelope in `detail`. */
  function eventBridgeEvent(id: string, detail: unknown) {
    return { version: '0', id, 'detail-type': 'Page Viewed', source: 'com.example.web', account: '000000000000', time: '2026-12-01T10:00:00Z', region: 'us-east-1', resources: [], detail };
  }

  test('the same event put twice by a retried PutEvents (two EventBridge ids) counts once', async () => {
    const local = await start(editedAssembly(withEventBridgeRule({ policy: true })));
    expect(local.fanOut.refused).toEqual([]);
    const [target] = local.fanOut.ruleTargets;
    expect(target?.ruleLogicalId).toBe('PageViewsRule');
    const event = pageView('fan-events');
    await deliverEventBridgeEvent(local.clients.sqs, target!, eventBridgeEvent('6a7e8feb-b491-4cf7-a9f1-bf3703467718', event));
    await deliverEventBridgeEvent(local.clients.sqs, target!, eventBridgeEvent('0b2c1e47-0d43-4c1f-8e8e-1c7f1a5b9d21', event));
    expect(await views(local, 'fan-events', 1)).toBe(1);
  }, 90_000);

  test('a rule whose queue policy lets it send nothing is refused up front', async () => {
    const local = await start(editedAssembly(withEventBridgeRule({ policy: false })));
    expect(local.fanOut.ruleTargets).toEqual([]);
    expect(local.fanOut.refused).toEqual([expect.objectContaining({ logicalId: 'PageViewsRule', service: 'events.amazonaws.com' })]);
  }, 90_000);

  test('a detail that is not our envelope goes to the DLQ with context', async () => {
    const local = await start(editedAssembly(withEventBridgeRule({ policy: true })));
    await local.clients.sqs.send(new SendMessageCommand({ QueueUrl: output(local.outputs, 'PageViewsQueueUrl'), MessageBody: JSON.stringify(eventBridgeEvent('e-1', { orderId: 'o-1' })) }));
    const [failure] = await dlqFailures(local, 1);
    expect(failure?.error.name).toBe('InvalidEnvelopeError');
    expect(failure?.error.message).toMatch(/detail/);
  }, 90_000);
});

describe('an S3 on-failure destination', () => {
  test("is refused at start, by name, when the function's role may not put objects in the bucket", async () => {
    const synthesized = editedAssembly((template) => {
      template.Resources.OrdersArchive = { Type: 'AWS::S3::Bucket', Properties: {} };
      const mapping = resourcesOfType(template, ResourceType.EVENT_SOURCE_MAPPING).find((resource) => JSON.stringify(resource.properties.FunctionName).includes('OrderProjection'));
      const properties = template.Resources[mapping?.logicalId ?? '']?.Properties as { DestinationConfig: { OnFailure: { Destination: unknown } } };
      properties.DestinationConfig.OnFailure.Destination = { 'Fn::GetAtt': ['OrdersArchive', 'Arn'] };
    });
    await expect(start(synthesized)).rejects.toThrow(/OrderProjection\w*'s stream mapping sends failed batches to the bucket \S+, but User: arn:aws:sts::\d+:assumed-role\/\S+ is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::\S+\/aws\/lambda\/\* because no identity-based policy allows the s3:PutObject action: every batch it gives up on would be lost/);
  }, 90_000);
});
