/**
 * Local mode's reading of a template's Data API clusters and `AwsCustomResource` calls, without
 * engines: what a cluster's intrinsics resolve to, which calls are run and which are listed as not
 * run; and that the stack's runtime loads no `pg` (a stack without a cluster never needs it).
 */
import { resolveValue, type LocalResource } from '../../../aws/cloudformation/intrinsics';
import type { Template } from '../../../aws/cloudformation/template';
import { functionRuntimes } from '../../../emulator/stack/functions';
import { awsCalls, clusterResource, runProvisionCalls, sqlClusters } from '../../../emulator/stack/sql-clusters';

jest.mock('pg', () => {
  throw new Error('pg was loaded');
});

const CLUSTER = { Type: 'AWS::RDS::DBCluster', Properties: { Engine: 'aurora-postgresql', EnableHttpEndpoint: true, DatabaseName: 'ledger' } };
const clusterArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':rds:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':cluster:', { Ref: 'Db' }]] };

function callOf(service: string, action: string): { Type: string; Properties: Record<string, unknown> } {
  return { Type: 'Custom::AWS', Properties: { Create: { 'Fn::Join': ['', [`{"service":"${service}","action":"${action}","parameters":{"resourceArn":"`, clusterArn, '"}}']] } } };
}

function contextOf(template: Template) {
  const resources = new Map<string, LocalResource>(sqlClusters(template, 'Stack', '-X').map((cluster) => [cluster.logicalId, clusterResource(cluster)]));
  return { resources, pseudo: { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '000000000000' } };
}

test('a cluster with the Data API on is named as RDS names one, and its Ref, ARN and secret resolve', () => {
  const template = { Resources: { Db: CLUSTER, Mysql: { Type: 'AWS::RDS::DBCluster', Properties: { Engine: 'aurora-mysql', EnableHttpEndpoint: true } }, Closed: { Type: 'AWS::RDS::DBCluster', Properties: { Engine: 'aurora-postgresql' } } } };
  const [cluster, ...others] = sqlClusters(template, 'Stack', '-X');
  expect(others).toEqual([]);
  expect(cluster).toMatchObject({ logicalId: 'Db', identifier: 'stack-db-x', databaseName: 'ledger' });
  const context = contextOf(template);
  expect(resolveValue(clusterArn, context)).toBe(cluster?.arn);
  expect(resolveValue({ 'Fn::GetAtt': ['Db', 'MasterUserSecret.SecretArn'] }, context)).toBe(cluster?.secretArn);
});

test('a Data API statement is a call to run; another call, or one that does not resolve, is listed as not run with why', async () => {
  const template = { Resources: { Db: CLUSTER, Migrate: callOf('rds-data', 'ExecuteStatement'), Tag: callOf('ec2', 'CreateTags'), Lost: { Type: 'Custom::AWS', Properties: { Create: { Ref: 'Nowhere' } } }, DeleteOnly: { Type: 'Custom::AWS', Properties: { Delete: '{}' } } } };
  const context = contextOf(template);
  expect(awsCalls(template, context).calls.map((call) => call.logicalId)).toEqual(['Migrate', 'Tag']);
  const run = await runProvisionCalls(template, context, undefined);
  expect(run.ran).toEqual([]);
  expect(run.skipped).toEqual([
    { logicalId: 'Lost', reason: expect.stringContaining('does not resolve locally') },
    { logicalId: 'DeleteOnly', reason: 'it makes no call at create' },
    { logicalId: 'Tag', reason: expect.stringContaining('not ec2:CreateTags') },
    { logicalId: 'Migrate', reason: expect.stringContaining('no Aurora PostgreSQL cluster') },
  ]);
});

test('the AwsCustomResource provider function is left out of the runtimes that choose the functions\' Node.js', () => {
  const fn = (runtime: string) => ({ Type: 'AWS::Lambda::Function', Properties: { Runtime: runtime } });
  expect(functionRuntimes({ Resources: { Ledger: fn('nodejs24.x'), AWS679f53fac002430cb0da5b7982bd22872D164C4C: fn('nodejs22.x') } })).toEqual(['nodejs24.x']);
});

test('the stack runtime loads without pg; the PostgreSQL engine does not', async () => {
  await expect(import('../../../emulator/stack/runtime')).resolves.toHaveProperty('startLocalStack');
  await expect(import('../../../emulator/engines/postgres')).rejects.toThrow('pg was loaded');
});
