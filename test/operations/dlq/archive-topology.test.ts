/**
 * Which queue stands for which failure archive, read from a synthesized template: a stream
 * mapping whose on-failure destination is a bucket, and the EventBridge rule that announces that
 * bucket's objects to a queue. Checked on the templates the constructs synthesize, with the
 * template's values resolved by hand (`archiveLinks`) and as a deployed stack's would be
 * (`deployedTopology`). No AWS call, no engine.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { DynamoStreamConsumer, KinesisConsumer } from '../../../lib';
import type { Template as CfnTemplate } from '../../../aws/cloudformation/template';
import { deployedTopology, findDlq, type DeployedQueue, type DeployedStack } from '../../../operations/dlq';
import { archiveLinks, bucketNameOfArn, objectCreatedRules, type TryResolve } from '../../../operations/dlq/archive-topology';
import { FIXTURE_HANDLER, logicalId, testStack } from '../../lib/support';

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const STACK = 'Test';

type Consumers = ('kinesis-s3' | 'kinesis-sqs' | 'table-s3')[];

/** A stack with the consumers asked for, synthesized without bundling. */
function synth(consumers: Consumers = ['kinesis-s3']): CfnTemplate {
  const { stack, alarmTopic } = testStack();
  for (const consumer of consumers) {
    if (consumer === 'table-s3') {
      const table = new Table(stack, 'Orders', { partitionKey: { name: 'pk', type: AttributeType.STRING }, stream: StreamViewType.NEW_AND_OLD_IMAGES });
      new DynamoStreamConsumer(stack, 'Notifier', { consumerName: 'notifier', entry: FIXTURE_HANDLER, alarmTopic, table, onFailure: 's3' });
    } else {
      const [id, consumerName] = consumer === 'kinesis-s3' ? ['Clicks', 'click-counter'] : ['Views', 'view-counter'];
      new KinesisConsumer(stack, id, { consumerName, entry: FIXTURE_HANDLER, alarmTopic, onFailure: consumer === 'kinesis-s3' ? 's3' : 'sqs' });
    }
  }
  return Template.fromStack(stack).toJSON() as CfnTemplate;
}

/** The only logical id of `type` starting with `prefix`. */
const idOf = (template: CfnTemplate, type: string, prefix: string) => logicalId(Template.fromJSON(template), type, prefix);

/** A physical name as CloudFormation would give it; lowercase for a bucket. */
function nameOf(template: CfnTemplate, logicalId: string): string {
  const name = `${STACK}-${logicalId}-X1Y2`;
  return template.Resources[logicalId]?.Type === 'AWS::S3::Bucket' ? name.toLowerCase() : name;
}

function arnOf(template: CfnTemplate, logicalId: string): string {
  const name = nameOf(template, logicalId);
  switch (template.Resources[logicalId]?.Type) {
    case 'AWS::S3::Bucket':
      return `arn:aws:s3:::${name}`;
    case 'AWS::SQS::Queue':
      return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
    case 'AWS::Kinesis::Stream':
      return `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${name}`;
    case 'AWS::DynamoDB::Table':
      return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;
    default:
      return `arn:aws:other:${REGION}:${ACCOUNT}:${name}`;
  }
}

/** `{Ref: X}` -> X's name, `{'Fn::GetAtt': [X, 'Arn']}` -> X's ARN (`StreamArn` for a table); anything else unresolved. */
function resolverOf(template: CfnTemplate): TryResolve {
  return (value) => {
    if (typeof value === 'string') return value;
    const ref = (value as { Ref?: unknown } | undefined)?.Ref;
    if (typeof ref === 'string' && template.Resources[ref]) return nameOf(template, ref);
    const [target, attribute] = ((value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'] ?? []) as [string?, string?];
    if (target === undefined || !template.Resources[target]) return undefined;
    if (attribute === 'Arn') return arnOf(template, target);
    if (attribute === 'StreamArn') return `${arnOf(template, target)}/stream/2026-11-30T00:00:00.000`;
    return undefined;
  };
}

/** What CloudFormation and the services would report of the stack, as in aws-topology.int.test.ts. */
function deployed(template: CfnTemplate): DeployedStack {
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type).map(([id]) => id);
  const physicalIds = Object.fromEntries(resources.map(([id, resource]) => [id, resource.Type === 'AWS::SQS::Queue' ? queueUrl(template, id) : nameOf(template, id)]));
  return {
    stackName: STACK,
    stackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${STACK}/0f0e`,
    outputs: {},
    physicalIds,
    queues: ofType('AWS::SQS::Queue').map((id): DeployedQueue => ({ logicalId: id, url: queueUrl(template, id), name: nameOf(template, id), arn: arnOf(template, id) })),
    streams: ofType('AWS::Kinesis::Stream').map((id) => ({ logicalId: id, name: nameOf(template, id), arn: arnOf(template, id), retentionHours: 24 })),
    tables: ofType('AWS::DynamoDB::Table').map((id) => ({ logicalId: id, name: nameOf(template, id), arn: arnOf(template, id), streamArn: `${arnOf(template, id)}/stream/2026-11-30T00:00:00.000` })),
    template,
  };
}

const queueUrl = (template: CfnTemplate, id: string) => `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${nameOf(template, id)}`;

/** The template without the resources whose logical ids start with `prefix`. */
function without(template: CfnTemplate, type: string, prefix: string): CfnTemplate {
  const removed = idOf(template, type, prefix);
  return { ...template, Resources: Object.fromEntries(Object.entries(template.Resources).filter(([id]) => id !== removed)) };
}

describe("archiveLinks, on a KinesisConsumer with onFailure: 's3'", () => {
  const template = synth();
  const bucket = idOf(template, 'AWS::S3::Bucket', 'ClicksFailureArchiveBucket');
  const index = idOf(template, 'AWS::SQS::Queue', 'ClicksFailureArchiveDlq');
  const stream = idOf(template, 'AWS::Kinesis::Stream', 'ClicksStream');

  test("links the mapping's bucket to its stream and to the queue the rule announces its objects to", () => {
    expect(archiveLinks(template, resolverOf(template))).toEqual([{ bucket: nameOf(template, bucket), streamArn: arnOf(template, stream), indexQueueArn: arnOf(template, index) }]);
  });

  test("the consumer's own DLQ is no archive's index", () => {
    const dlq = idOf(template, 'AWS::SQS::Queue', 'ClicksDlq');
    expect(archiveLinks(template, resolverOf(template)).map((link) => link.indexQueueArn)).not.toContain(arnOf(template, dlq));
  });

  test("the rule is found as one on the bucket's Object Created events, sending to the index queue", () => {
    expect(objectCreatedRules(template, resolverOf(template))).toEqual([{ ruleLogicalId: idOf(template, 'AWS::Events::Rule', 'ClicksFailureArchiveObjectCreated'), buckets: [nameOf(template, bucket)], queueArns: [arnOf(template, index)] }]);
  });

  test('values that do not resolve leave the archive out rather than throw', () => {
    expect(archiveLinks(template, () => undefined)).toEqual([]);
    const noBucketArn: TryResolve = (value) => ((value as { 'Fn::GetAtt'?: unknown[] } | undefined)?.['Fn::GetAtt']?.[0] === bucket ? undefined : resolverOf(template)(value));
    expect(archiveLinks(template, noBucketArn)).toEqual([]);
  });

  test('a bucket no rule announces has no index queue, so no link', () => {
    const unannounced = without(template, 'AWS::Events::Rule', 'ClicksFailureArchiveObjectCreated');
    expect(archiveLinks(unannounced, resolverOf(unannounced))).toEqual([]);
  });

  test('a rule on other events of the bucket, or one sending elsewhere than to a queue, announces nothing', () => {
    const ruleId = idOf(template, 'AWS::Events::Rule', 'ClicksFailureArchiveObjectCreated');
    const withRule = (change: (properties: Record<string, unknown>) => Record<string, unknown>): CfnTemplate => {
      const rule = template.Resources[ruleId];
      return { ...template, Resources: { ...template.Resources, [ruleId]: { ...rule, Type: rule?.Type ?? '', Properties: change({ ...rule?.Properties }) } } };
    };
    const pattern = template.Resources[ruleId]?.Properties?.EventPattern as Record<string, unknown>;
    const deleted = withRule((properties) => ({ ...properties, EventPattern: { ...pattern, 'detail-type': ['Object Deleted'] } }));
    expect(archiveLinks(deleted, resolverOf(deleted))).toEqual([]);
    const otherSource = withRule((properties) => ({ ...properties, EventPattern: { ...pattern, source: ['aws.ec2'] } }));
    expect(archiveLinks(otherSource, resolverOf(otherSource))).toEqual([]);
    const toTopic = withRule((properties) => ({ ...properties, Targets: [{ Id: 'T', Arn: `arn:aws:sns:${REGION}:${ACCOUNT}:alarms` }] }));
    expect(archiveLinks(toTopic, resolverOf(toTopic))).toEqual([]);
    // A pattern without detail-type matches every S3 event of the bucket, Object Created among them.
    const anyType = withRule((properties) => ({ ...properties, EventPattern: { source: pattern.source, detail: pattern.detail } }));
    expect(archiveLinks(anyType, resolverOf(anyType))).toHaveLength(1);
  });
});

describe('archiveLinks, on other consumers', () => {
  test("a consumer with onFailure: 'sqs' has no archive", () => {
    const template = synth(['kinesis-sqs']);
    expect(archiveLinks(template, resolverOf(template))).toEqual([]);
    expect(objectCreatedRules(template, resolverOf(template))).toEqual([]);
  });

  test("a DynamoStreamConsumer's archive is linked to the table's stream", () => {
    const template = synth(['table-s3']);
    const table = idOf(template, 'AWS::DynamoDB::Table', 'Orders');
    expect(archiveLinks(template, resolverOf(template))).toEqual([{
      bucket: nameOf(template, idOf(template, 'AWS::S3::Bucket', 'NotifierFailureArchiveBucket')),
      streamArn: `${arnOf(template, table)}/stream/2026-11-30T00:00:00.000`,
      indexQueueArn: arnOf(template, idOf(template, 'AWS::SQS::Queue', 'NotifierFailureArchiveDlq')),
    }]);
  });

  test('two archives in one stack are each linked to their own stream and index', () => {
    const template = synth(['kinesis-s3', 'kinesis-sqs', 'table-s3']);
    const links = archiveLinks(template, resolverOf(template));
    expect(links.map((link) => [link.bucket.includes('clicks'), link.indexQueueArn.includes('ClicksFailureArchiveDlq'), link.streamArn.includes('ClicksStream')]).sort()).toEqual([[false, false, false], [true, true, true]]);
    expect(links.find((link) => link.bucket.includes('notifier'))?.indexQueueArn).toContain('NotifierFailureArchiveDlq');
  });
});

describe('bucketNameOfArn', () => {
  test.each([
    ['arn:aws:s3:::my-archive', 'my-archive'],
    ['arn:aws-cn:s3:::my-archive', 'my-archive'],
    ['arn:aws:s3:::my-archive/aws/lambda/*', undefined],
    [`arn:aws:sqs:${REGION}:${ACCOUNT}:my-dlq`, undefined],
    ['my-archive', undefined],
  ])('%s -> %s', (arn, bucket) => {
    expect(bucketNameOfArn(arn)).toBe(bucket);
  });
});

describe('deployedTopology of a stack with a failure archive', () => {
  const template = synth(['kinesis-s3', 'kinesis-sqs']);
  const index = idOf(template, 'AWS::SQS::Queue', 'ClicksFailureArchiveDlq');

  test("reports the index queue as a DLQ standing for the archive, fed by the stream's mapping", () => {
    const topology = deployedTopology(deployed(template));
    const archives = topology.deadLetterQueues.filter((dlq) => dlq.archive !== undefined);
    expect(archives).toEqual([{
      name: nameOf(template, index),
      url: queueUrl(template, index),
      arn: arnOf(template, index),
      sources: [{ role: 'on-failure', arn: arnOf(template, idOf(template, 'AWS::Kinesis::Stream', 'ClicksStream')) }],
      archive: { bucket: nameOf(template, idOf(template, 'AWS::S3::Bucket', 'ClicksFailureArchiveBucket')) },
    }]);
    expect(findDlq(topology, 'ClicksFailureArchive').archive?.bucket).toBe(nameOf(template, idOf(template, 'AWS::S3::Bucket', 'ClicksFailureArchiveBucket')));
  });

  test("the other consumer's DLQ, its mapping's on-failure queue, is reported as before, with no archive", () => {
    const topology = deployedTopology(deployed(template));
    const views = idOf(template, 'AWS::SQS::Queue', 'ViewsDlq');
    expect(topology.deadLetterQueues.find((dlq) => dlq.arn === arnOf(template, views))).toEqual({
      name: nameOf(template, views),
      url: queueUrl(template, views),
      arn: arnOf(template, views),
      sources: [{ role: 'on-failure', arn: arnOf(template, idOf(template, 'AWS::Kinesis::Stream', 'ViewsStream')) }],
    });
  });

  test("the archived consumer's own DLQ, where its runtime sends poison with context, is reported with the runtime as its feeder", () => {
    const topology = deployedTopology(deployed(template));
    const clicks = idOf(template, 'AWS::SQS::Queue', 'ClicksDlq');
    expect(topology.deadLetterQueues.find((dlq) => dlq.arn === arnOf(template, clicks))).toEqual({
      name: nameOf(template, clicks),
      url: queueUrl(template, clicks),
      arn: arnOf(template, clicks),
      sources: [{ role: 'runtime', arn: arnOf(template, idOf(template, 'AWS::Kinesis::Stream', 'ClicksStream')) }],
    });
    expect(findDlq(topology, queueUrl(template, clicks)).archive).toBeUndefined();
  });

  test("a table stream consumer's archive has the table's stream as its source", () => {
    const tableTemplate = synth(['table-s3']);
    const stack = deployed(tableTemplate);
    const [archive] = deployedTopology(stack).deadLetterQueues.filter((dlq) => dlq.archive);
    expect(archive?.sources).toEqual([{ role: 'on-failure', arn: stack.tables[0]?.streamArn }]);
    expect(archive?.archive?.bucket).toBe(nameOf(tableTemplate, idOf(tableTemplate, 'AWS::S3::Bucket', 'NotifierFailureArchiveBucket')));
  });

  test('a bucket whose objects no rule announces makes no archive DLQ: its queue is no DLQ at all', () => {
    const unannounced = without(template, 'AWS::Events::Rule', 'ClicksFailureArchiveObjectCreated');
    const topology = deployedTopology(deployed(unannounced));
    expect(topology.deadLetterQueues.filter((dlq) => dlq.archive)).toEqual([]);
    expect(topology.deadLetterQueues.map((dlq) => dlq.arn)).not.toContain(arnOf(template, index));
    expect(topology.deadLetterQueues.map((dlq) => dlq.arn)).toContain(arnOf(template, idOf(template, 'AWS::SQS::Queue', 'ViewsDlq')));
  });
});
