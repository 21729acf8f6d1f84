import type { Template, TemplateResource } from '../../../aws/cloudformation/template';
import { SQL_ENV } from '../../../aws/consumer-env';
import { renderArchitecture } from '../../../tools/architecture/document';
import { renderMermaid } from '../../../tools/architecture/mermaid';
import { pipelineModel } from '../../../tools/architecture/model';
import { describeExpression, describeStatement } from '../../../tools/architecture/schedules';
import { synthesizeInProcess } from '../../../tools/architecture/synth';

/** `arn:<partition>:rds:<region>:<account>:cluster:<Ref>`, as CDK writes a cluster's ARN. */
function clusterArn(logicalId: string): unknown {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':rds:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':cluster:', { Ref: logicalId }]] };
}

/** The Data API `executeStatement` target's input, as a `Fn::Join` around the cluster's references. */
function statementInput(logicalId: string, sql: string): unknown {
  const arn = (clusterArn(logicalId) as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  return {
    'Fn::Join': ['', ['{"ResourceArn":"', ...arn, '","SecretArn":"', { 'Fn::GetAtt': [logicalId, 'MasterUserSecret.SecretArn'] }, `","Database":"books","Sql":${JSON.stringify(sql)}}`]],
  };
}

const EXECUTE_STATEMENT = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:::aws-sdk:rdsdata:executeStatement']] };
const EXPIRY = 'DELETE FROM "ledger"."dedup" WHERE expires_at < extract(epoch from now())::bigint';

function resource(type: string, path: string, properties: Record<string, unknown> = {}): TemplateResource {
  return { Type: type, Properties: properties, Metadata: { 'aws:cdk:path': `Stack/${path}/Resource` } };
}

/** A consumer that names a cluster in its environment, the cluster, a schedule that expires its dedup rows, and the schedule's alarmed DLQ. */
const TEMPLATE: Template = {
  Resources: {
    BooksDb1A2B3C4D: resource('AWS::RDS::DBCluster', 'Books/Db', {
      Engine: 'aurora-postgresql',
      EngineVersion: '16.4',
      EnableHttpEndpoint: true,
      DatabaseName: 'books',
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 2 },
      StorageEncrypted: true,
    }),
    BooksQueue1A2B3C4D: resource('AWS::SQS::Queue', 'Books/Queue'),
    BooksFunction1A2B3C4D: resource('AWS::Lambda::Function', 'Books/Function', {
      Runtime: 'nodejs24.x',
      Environment: {
        Variables: {
          CONSUMER_NAME: 'books',
          [SQL_ENV.resourceArn]: clusterArn('BooksDb1A2B3C4D'),
          [SQL_ENV.secretArn]: { 'Fn::GetAtt': ['BooksDb1A2B3C4D', 'MasterUserSecret.SecretArn'] },
          [SQL_ENV.database]: 'books',
          [SQL_ENV.dedupTable]: 'ledger.dedup',
        },
      },
    }),
    BooksMapping1A2B3C4D: resource('AWS::Lambda::EventSourceMapping', 'Books/Function/SqsEventSource', {
      FunctionName: { Ref: 'BooksFunction1A2B3C4D' },
      EventSourceArn: { 'Fn::GetAtt': ['BooksQueue1A2B3C4D', 'Arn'] },
    }),
    BooksExpiryDlq1A2B3C4D: resource('AWS::SQS::Queue', 'Books/ExpiryDlq'),
    BooksExpiryDlqAlarm1A2B3C4D: resource('AWS::CloudWatch::Alarm', 'Books/ExpiryDlqAlarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['BooksExpiryDlq1A2B3C4D', 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    }),
    BooksExpiry1A2B3C4D: resource('AWS::Scheduler::Schedule', 'Books/Expiry', {
      ScheduleExpression: 'rate(15 minutes)',
      Target: {
        Arn: EXECUTE_STATEMENT,
        Input: statementInput('BooksDb1A2B3C4D', EXPIRY),
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': ['BooksExpiryDlq1A2B3C4D', 'Arn'] } },
      },
    }),
    // A schedule with another target is not one of the Data API's: not drawn.
    BooksReport1A2B3C4D: resource('AWS::Scheduler::Schedule', 'Books/Report', {
      ScheduleExpression: 'rate(1 day)',
      Target: { Arn: { 'Fn::GetAtt': ['BooksFunction1A2B3C4D', 'Arn'] }, Input: '{}' },
    }),
  },
};

describe('a Data API cluster, the consumer that names it, and the schedule that expires its dedup rows', () => {
  const model = pipelineModel(TEMPLATE);
  const lines = renderMermaid(model).split('\n').map((line) => line.trim());

  test('is a database node, with an edge from the function labelled with the variable that names the cluster (its secret names a part, not the cluster)', () => {
    expect(lines).toContain('BooksDb[("Aurora PostgreSQL (Data API)<br/>Books/Db")]');
    expect(lines).toContain(`BooksFunction -->|"${SQL_ENV.resourceArn}"| BooksDb`);
    expect(lines.filter((line) => line.startsWith('BooksFunction -->'))).toHaveLength(1);
  });

  test("names the cluster, its database and dedup table in the consumer's Uses", () => {
    const [consumer] = model.consumers;
    expect(consumer?.uses).toEqual([{ resource: model.resources.get('BooksDb1A2B3C4D'), via: SQL_ENV.resourceArn, details: ['database `books`', 'dedup table `ledger.dedup`'] }]);
    expect(renderArchitecture(TEMPLATE)).toMatch(/\| `Books\/Db` \(DATA_API_RESOURCE_ARN; database `books`, dedup table `ledger.dedup`\) \|$/m);
  });

  test('lists the cluster among the shared resources, with its settings and users', () => {
    expect(renderArchitecture(TEMPLATE)).toContain(
      '| `Books/Db` | Aurora PostgreSQL cluster | Data API, database `books`, engine 16.4, Serverless v2, 0.5 to 2 ACUs, encrypted | `books`, schedule `Books/Expiry` |',
    );
  });

  test('draws the schedule from its target: the statement on the cluster its input names, and its failed runs to its DLQ, which is a DLQ with its alarm', () => {
    expect(model.schedules.map((schedule) => schedule.schedule.path)).toEqual(['Books/Expiry']);
    expect(lines).toContain('BooksExpiry("EventBridge Scheduler<br/>Books/Expiry: every 15 minutes")');
    expect(lines).toContain('BooksExpiry -->|"deletes expired dedup rows"| BooksDb');
    expect(lines).toContain('BooksExpiry -->|"failed runs"| BooksExpiryDlq');
    expect(lines).toContain('BooksExpiryDlq[/"DLQ<br/>Books/ExpiryDlq"/]');
    expect(lines).toContain('BooksExpiryDlq -->|"watched by"| BooksExpiryDlqAlarm');
    expect(lines).toContainEqual(expect.stringMatching(/^class (\w+,)*BooksExpiryDlq(,\w+)* dlq$/));
  });

  test('declares a node for every end of every edge', () => {
    const declared = new Set(lines.map((line) => /^([A-Za-z0-9]+)[[({>]/.exec(line)?.[1]).filter(Boolean));
    const ends = lines.flatMap((line) => /^([A-Za-z0-9]+) -->\|"[^"]*"\| ([A-Za-z0-9]+)$/.exec(line)?.slice(1) ?? []);
    expect(ends.filter((end) => !declared.has(end))).toEqual([]);
  });
});

describe('what a schedule runs', () => {
  test("says `deletes expired dedup rows` only for the dedup table's expiry statement", () => {
    expect(describeStatement(EXPIRY)).toBe('deletes expired dedup rows');
    expect(describeStatement('DELETE FROM "eo_dedup" WHERE expires_at < 5')).toBe('runs DELETE');
    expect(describeStatement('vacuum analyze')).toBe('runs VACUUM');
    expect(describeStatement(undefined)).toBe('runs a statement');
  });

  test('says a rate as `every …`, and any other expression as it is', () => {
    expect(describeExpression('rate(1 hour)')).toBe('every 1 hour');
    expect(describeExpression('cron(0 3 * * ? *)')).toBe('cron(0 3 * * ? *)');
  });
});

describe("CDK's AwsCustomResource provider", () => {
  test('is not drawn as a consumer of the example stack, though it runs the SQL migrations', () => {
    const template = synthesizeInProcess();
    const provider = Object.keys(template.Resources).find((logicalId) => logicalId.startsWith('AWS679f53fac002430cb0da5b7982bd2287') && template.Resources[logicalId]?.Type === 'AWS::Lambda::Function');
    expect(provider).toBeDefined();
    const model = pipelineModel(template);
    expect(model.consumers.map((consumer) => consumer.fn.logicalId)).not.toContain(provider);
    expect(renderMermaid(model)).not.toContain('AWS679f53fac002430cb0da5b7982bd2287');
  });
});
