import { Template } from 'aws-cdk-lib/assertions';
import { SQL_ENV } from '../../aws/consumer-env';
import { EventPipelineStack, sqlClusterFromContext, type SqlClusterArns } from '../../example';
import { testApp } from '../lib/support';

const CLUSTER: Required<SqlClusterArns> = {
  clusterArn: 'arn:aws:rds:us-east-1:123456789012:cluster:effects',
  secretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:rds!cluster-effects-AbCdEf',
  secretKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000000',
};

/** The example's template with the SQL effects database on `sqlCluster`. */
function synthOnCluster(sqlCluster: SqlClusterArns): Template {
  return Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [], sqlCluster }));
}

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

function policyStatements(template: Template): Statement[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: { PolicyDocument: { Statement: Statement[] } } }[];
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

describe('EventPipelineStack with sqlCluster', () => {
  const template = synthOnCluster(CLUSTER);

  test('makes no cluster, writer, VPC or key of its own; keeps the migrations and the expiry schedule', () => {
    for (const type of ['AWS::RDS::DBCluster', 'AWS::RDS::DBInstance', 'AWS::EC2::VPC', 'AWS::EC2::FlowLog']) template.resourceCountIs(type, 0);
    expect(JSON.stringify(template.findResources('AWS::KMS::Key'))).not.toContain('SQL effects database');
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    template.resourceCountIs('Custom::AWS', 4);
  });

  test('invoice-payments names the cluster and its secret, and may decrypt the secret only through Secrets Manager', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: { CONSUMER_NAME: 'invoice-payments', [SQL_ENV.resourceArn]: CLUSTER.clusterArn, [SQL_ENV.secretArn]: CLUSTER.secretArn } } });
    const onKey = policyStatements(template).filter((statement) => statement.Resource === CLUSTER.secretKeyArn);
    // The migration's role, the consumer's and the expiry schedule's (the Data API reads the secret
    // as its caller): kms:Decrypt, only by way of Secrets Manager.
    expect(onKey).toHaveLength(3);
    for (const statement of onKey) expect(statement).toMatchObject({ Action: 'kms:Decrypt', Condition: { StringEquals: { 'kms:ViaService': expect.anything() } } });
  });
});

describe('sqlClusterFromContext', () => {
  test('takes the JSON of `-c sqlCluster=...` or an object of cdk.json, and nothing when unset', () => {
    expect(sqlClusterFromContext(JSON.stringify(CLUSTER))).toEqual(CLUSTER);
    const { clusterArn, secretArn } = CLUSTER;
    expect(sqlClusterFromContext({ clusterArn, secretArn })).toEqual({ clusterArn, secretArn });
    expect(sqlClusterFromContext(undefined)).toBeUndefined();
  });

  test.each([
    ['not JSON', 'arn:aws:rds:us-east-1:123456789012:cluster:effects'],
    ['no secret', JSON.stringify({ clusterArn: CLUSTER.clusterArn })],
    ['a key that is not a string', { ...CLUSTER, secretKeyArn: 1 }],
  ])('refuses %s, naming the shape it takes', (_, value) => {
    expect(() => sqlClusterFromContext(value)).toThrow(/context sqlCluster must be \{"clusterArn": \.\.\., "secretArn": \.\.\., "secretKeyArn"\?: \.\.\.\}, as JSON/);
  });
});
