/**
 * SqlEffectDatabase: an Aurora PostgreSQL Serverless v2 cluster behind the Data API, with the dedup
 * table created by a migration at deploy and expired by a schedule that calls the Data API itself;
 * `connect` gives a consumer exactly the Data API calls and secret read the SQL strategy needs.
 * cdk-nag and the Control Tower controls find nothing unreviewed in it, cfn-lint nothing but the
 * warning every function has, and a prop out of range is refused with its name.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DATA_API_CONSUMER_ACTIONS, failOnEveryFinding, QueueConsumer, SQL_ENV, SqlEffectDatabase, type SqlEffectDatabaseProps } from '../../lib';
import { sqlDedupExpiryStatement, sqlDedupTableStatements } from '../../aws/sql-dedup-table';
import { FIXTURE_HANDLER, grantedActions, logicalId, testApp, testStack } from './support';

/** A template's JSON with its quotes and escapes taken out, to find a statement in a serialized call. */
function unquoted(text: string | undefined): string {
  return (text ?? '').replace(/[\\"]/g, '');
}

function synth(props: Partial<SqlEffectDatabaseProps> = {}): { template: Template; database: SqlEffectDatabase } {
  const { stack, alarmTopic } = testStack();
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic, ...props });
  return { template: Template.fromStack(stack), database };
}

describe('a new cluster', () => {
  const { template } = synth();
  const cluster = () => logicalId(template, 'AWS::RDS::DBCluster');

  test('is Aurora PostgreSQL Serverless v2 from 0 to 4 ACUs, with the Data API, encrypted, its password managed by RDS', () => {
    template.hasResourceProperties('AWS::RDS::DBCluster', {
      Engine: 'aurora-postgresql',
      EngineVersion: Match.stringLikeRegexp('^17\\.'),
      ServerlessV2ScalingConfiguration: { MinCapacity: 0, MaxCapacity: 4 },
      EnableHttpEndpoint: true,
      DatabaseName: 'effects',
      ManageMasterUserPassword: true,
      MasterUsername: 'eo_admin',
      MasterUserSecret: { KmsKeyId: Match.anyValue() },
      StorageEncrypted: true,
      KmsKeyId: Match.anyValue(),
      EnableIAMDatabaseAuthentication: true,
      DeletionProtection: true,
      BackupRetentionPeriod: 7,
      EnableCloudwatchLogsExports: ['postgresql'],
      CopyTagsToSnapshot: true,
      Port: 5433,
    });
    expect(template.findResources('AWS::RDS::DBCluster')[cluster()]).toMatchObject({ DeletionPolicy: 'Snapshot' });
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    template.hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless', MonitoringInterval: 60, AutoMinorVersionUpgrade: true });
  });

  test('lives in isolated subnets of a VPC of its own, with flow logs and no way out', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.resourceCountIs('AWS::EC2::Subnet', 2);
    template.resourceCountIs('AWS::EC2::FlowLog', 1);
  });

  test('the migration creates the dedup table, then its index, through the Data API, once the writer is up', () => {
    const migrations = template.findResources('Custom::AWS') as Record<string, { Properties: { Create: unknown }; DependsOn: string[] }>;
    expect(Object.keys(migrations)).toHaveLength(2);
    const writer = logicalId(template, 'AWS::RDS::DBInstance');
    const [table, index] = ['EffectsMigration0', 'EffectsMigration1'].map((prefix) => logicalId(template, 'Custom::AWS', prefix));
    sqlDedupTableStatements('eo_dedup').forEach((statement, position) => {
      const call = unquoted(JSON.stringify(migrations[[table, index][position] as string]?.Properties.Create));
      expect(call).toContain(unquoted(statement));
      expect(call).toContain('{service:rds-data,action:ExecuteStatement,');
    });
    expect(migrations[table as string]?.DependsOn).toContain(writer);
    // CloudFormation creates what does not depend on each other at once: the index must wait for its table.
    expect(migrations[index as string]?.DependsOn).toContain(table);
  });

  test('the expiry schedule calls ExecuteStatement itself every hour, and what it cannot do goes to an alarmed DLQ', () => {
    const dlq = logicalId(template, 'AWS::SQS::Queue', 'EffectsDlq');
    const [schedule] = Object.values(template.findResources('AWS::Scheduler::Schedule')) as { Properties: { ScheduleExpression: string; Target: Record<string, unknown> } }[];
    expect(schedule?.Properties.ScheduleExpression).toBe('rate(1 hour)');
    const target = schedule?.Properties.Target ?? {};
    expect(JSON.stringify(target.Arn)).toContain(':scheduler:::aws-sdk:rdsdata:executeStatement');
    expect(unquoted(JSON.stringify(target.Input))).toContain(`Database:effects,Sql:${unquoted(sqlDedupExpiryStatement('eo_dedup'))}`);
    expect(target).toMatchObject({ DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlq, 'Arn'] } }, RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 } });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [Match.anyValue()], Metrics: Match.arrayWith([Match.objectLike({ Id: 'visible' })]) });
  });

  test('the expiry schedule\'s role may make its statement, and read the secret and its key as the Data API does on the caller\'s behalf', () => {
    const [schedule] = Object.values(template.findResources('AWS::Scheduler::Schedule')) as { Properties: { Target: { RoleArn: { 'Fn::GetAtt': [string, string] } } } }[];
    const role = schedule?.Properties.Target.RoleArn['Fn::GetAtt'][0] ?? '';
    expect(role).toMatch(/^EffectsExpiryRole/);
    const policy = 'EffectsExpiryRoleDefaultPolicy';
    expect(Object.values(grantedActions(template, 'rds-data', policy))).toEqual([['rds-data:ExecuteStatement']]);
    expect(grantedActions(template, 'secretsmanager', policy)).toEqual({ [`${cluster()}.MasterUserSecret.SecretArn`]: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'] });
    expect(Object.values(grantedActions(template, 'kms', policy))).toEqual([['kms:Decrypt']]);
    const decrypt = (Object.values(template.findResources('AWS::IAM::Policy')).find((resource) => JSON.stringify(resource).includes(`"${role}"`)) as { Properties: { PolicyDocument: { Statement: { Action: unknown; Condition?: unknown }[] } } } | undefined)?.Properties.PolicyDocument.Statement.find((statement) => statement.Action === 'kms:Decrypt');
    expect(decrypt?.Condition).toEqual({ StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } } });
    template.hasResourceProperties('AWS::IAM::Role', { AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } })] } });
  });
});

test('connect: the runtime\'s variables, the Data API\'s statement and transaction calls on the cluster, the secret and its key through Secrets Manager', () => {
  const { stack, alarmTopic } = testStack();
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic });
  const consumer = new QueueConsumer(stack, 'Ledger', { consumerName: 'ledger', entry: FIXTURE_HANDLER, alarmTopic });
  database.connect(consumer.function);
  const template = Template.fromStack(stack);
  const cluster = logicalId(template, 'AWS::RDS::DBCluster');
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { CONSUMER_NAME: 'ledger' } } } })) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
  expect(fn?.Properties.Environment.Variables).toMatchObject({
    [SQL_ENV.resourceArn]: { 'Fn::Join': ['', expect.arrayContaining([':cluster:', { Ref: cluster }])] },
    [SQL_ENV.secretArn]: { 'Fn::GetAtt': [cluster, 'MasterUserSecret.SecretArn'] },
    [SQL_ENV.database]: 'effects',
    [SQL_ENV.dedupTable]: 'eo_dedup',
  });
  const role = logicalId(template, 'AWS::IAM::Policy', 'LedgerRoleDefaultPolicy');
  const rdsData = grantedActions(template, 'rds-data', role);
  expect(Object.values(rdsData)).toEqual([[...DATA_API_CONSUMER_ACTIONS].sort()]);
  expect(grantedActions(template, 'secretsmanager', role)).toEqual({ [`${cluster}.MasterUserSecret.SecretArn`]: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'] });
  expect(Object.values(grantedActions(template, 'kms', role))).toEqual([['kms:Decrypt']]);
});

test.each(['before', 'after'] as const)('connect: the function and its event source mapping wait for every statement of the migration, an addSchema called %s connect included', (when) => {
  const { stack, alarmTopic } = testStack();
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic });
  const schema = ['CREATE TABLE IF NOT EXISTS balances (account text PRIMARY KEY, amount bigint NOT NULL)'];
  if (when === 'before') database.addSchema('Balances', schema);
  const consumer = new QueueConsumer(stack, 'Ledger', { consumerName: 'ledger', entry: FIXTURE_HANDLER, alarmTopic });
  database.connect(consumer.function);
  if (when === 'after') database.addSchema('Balances', schema);
  const template = Template.fromStack(stack);
  const migrations = Object.keys(template.findResources('Custom::AWS'));
  expect(migrations).toHaveLength(3);
  const dependsOn = (type: string) => {
    const resources = Object.values(template.findResources(type)) as { DependsOn?: string[] }[];
    expect(resources).toHaveLength(1);
    return resources[0]?.DependsOn ?? [];
  };
  expect(dependsOn('AWS::Lambda::EventSourceMapping')).toEqual(expect.arrayContaining(migrations));
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Environment: { Variables: { CONSUMER_NAME: 'ledger' } } } })) as { DependsOn?: string[] }[];
  expect(fn?.DependsOn).toEqual(expect.arrayContaining(migrations));
});

test('addSchema: the consumers\' tables are made after the dedup table\'s, each statement after the one before, by the same role', () => {
  const { stack, alarmTopic } = testStack();
  const database = new SqlEffectDatabase(stack, 'Effects', { alarmTopic });
  const statements = ['CREATE TABLE IF NOT EXISTS invoices (invoice_id text PRIMARY KEY)', 'CREATE TABLE IF NOT EXISTS payments (payment_id text PRIMARY KEY)'];
  database.addSchema('Invoices', statements);
  const template = Template.fromStack(stack);
  const calls = template.findResources('Custom::AWS') as Record<string, { Properties: { Create: unknown; ServiceToken: unknown }; DependsOn: string[] }>;
  expect(Object.keys(calls)).toHaveLength(4);
  const [dedupIndex, first, second] = ['EffectsMigration1', 'EffectsSchemaInvoices0', 'EffectsSchemaInvoices1'].map((prefix) => logicalId(template, 'Custom::AWS', prefix) as string);
  statements.forEach((statement, position) => expect(unquoted(JSON.stringify(calls[[first, second][position] as string]?.Properties.Create))).toContain(statement));
  expect(calls[first as string]?.DependsOn).toContain(dedupIndex);
  expect(calls[second as string]?.DependsOn).toContain(first);
  expect(Object.keys(template.findResources('AWS::IAM::Role')).filter((id) => id.startsWith('EffectsMigrationRole'))).toHaveLength(1);
  expect(() => database.addSchema('Empty', [])).toThrow("addSchema('Empty'): give at least one statement");
  expect(() => database.addSchema('Blank', ['CREATE TABLE t (x int)', '  '])).toThrow("addSchema('Blank'): statement 1 is blank");
});

test('two databases in one stack: the one provider function that runs every migration may read both secrets', () => {
  // A stack has one AwsCustomResource provider, made with the first one's role: the second
  // database's statements run as that role, so it is the one that needs the second secret.
  const { stack, alarmTopic } = testStack();
  const first = new SqlEffectDatabase(stack, 'Ledger', { alarmTopic });
  const second = new SqlEffectDatabase(stack, 'Audit', { alarmTopic, existingCluster: { clusterArn: 'arn:aws:rds:eu-west-1:123456789012:cluster:audit', secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:audit-abc123' } });
  const template = Template.fromStack(stack);
  const calls = Object.values(template.findResources('Custom::AWS')) as { Properties: { ServiceToken: { 'Fn::GetAtt': [string, string] } } }[];
  const providers = new Set(calls.map((call) => call.Properties.ServiceToken['Fn::GetAtt'][0]));
  expect(providers.size).toBe(1);
  const [provider] = [...providers];
  const providerRole = (template.toJSON().Resources[provider as string] as { Properties: { Role: { 'Fn::GetAtt': [string, string] } } }).Properties.Role['Fn::GetAtt'][0];
  const secretsReadable = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${providerRole}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
    .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
    .flatMap((statement) => [stack.resolve(statement.Resource)].flat().map((resource) => JSON.stringify(resource)));
  for (const database of [first, second]) expect(secretsReadable).toContain(JSON.stringify(stack.resolve(database.secretArn)));
  // The second makes no role or log group that nothing would run with.
  expect(Object.keys(template.findResources('AWS::IAM::Role')).filter((id) => id.includes('MigrationRole'))).toEqual([expect.stringMatching(/^LedgerMigrationRole/)]);
  expect(Object.keys(template.findResources('AWS::Logs::LogGroup')).filter((id) => id.includes('MigrationLog'))).toEqual([expect.stringMatching(/^LedgerMigrationLog/)]);
});

test('an existing cluster: no cluster, VPC or key of its own; the migration, the expiry and connect use the ARNs given', () => {
  const clusterArn = 'arn:aws:rds:eu-west-1:123456789012:cluster:ledger';
  const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ledger-abc123';
  const { template } = synth({ existingCluster: { clusterArn, secretArn }, dedupTable: 'ledger.dedup', databaseName: 'ledger' });
  template.resourceCountIs('AWS::RDS::DBCluster', 0);
  template.resourceCountIs('AWS::EC2::VPC', 0);
  template.resourceCountIs('AWS::KMS::Key', 0);
  const schedule = unquoted(JSON.stringify(template.findResources('AWS::Scheduler::Schedule')));
  expect(schedule).toContain(`ResourceArn:${clusterArn},SecretArn:${secretArn},Database:ledger,Sql:${unquoted(sqlDedupExpiryStatement('ledger.dedup'))}`);
  expect(unquoted(JSON.stringify(template.findResources('Custom::AWS')))).toContain(`resourceArn:${clusterArn},secretArn:${secretArn},database:ledger,sql:CREATE TABLE IF NOT EXISTS ledger.dedup`);
});

test.each<[string, Partial<SqlEffectDatabaseProps>, RegExp]>([
  ['minCapacity below 0', { minCapacity: -1 }, /minCapacity must be 0\.\.256 ACUs in steps of 0\.5 \(given -1\)/],
  ['minCapacity off the half steps', { minCapacity: 0.3 }, /minCapacity must be 0\.\.256 ACUs in steps of 0\.5 \(given 0\.3\)/],
  ['maxCapacity below 1', { maxCapacity: 0.5 }, /maxCapacity must be 1\.\.256 ACUs in steps of 0\.5 \(given 0\.5\)/],
  ['maxCapacity past 256', { maxCapacity: 300 }, /maxCapacity must be 1\.\.256/],
  ['maxCapacity below minCapacity', { minCapacity: 8, maxCapacity: 4 }, /maxCapacity must be at least minCapacity \(given 4 and 8\)/],
  ['a dedup table that is not an identifier', { dedupTable: 'eo dedup; DROP TABLE x' }, /dedupTable must match/],
  ['a database name that is not one', { databaseName: '1st' }, /databaseName must match/],
  ['an expiry more often than every 5 minutes', { expiryInterval: Duration.minutes(1) }, /expiryInterval must be 5 minutes\.\.1 day \(given 1 minute\)/],
  ['new-cluster props beside an existing cluster', { existingCluster: { clusterArn: 'arn:aws:rds:eu-west-1:1:cluster:x', secretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' }, minCapacity: 1 }, /minCapacity describe a new cluster and cannot be given with existingCluster/],
])('refuses %s', (_, props, message) => {
  expect(() => synth(props)).toThrow(message);
});

describe('governance', () => {
  const outdir = fs.mkdtempSync(path.join(tmpdir(), 'eo-sql-database-'));
  afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));
  const app = testApp({ outdir });
  Validations.of(app).addPlugins(failOnEveryFinding(new CfnGuardValidator()));
  const stack = new Stack(app, 'Sql');
  const alarmTopic = new Topic(stack, 'Alarms');
  new SqlEffectDatabase(stack, 'Effects', { alarmTopic });

  test('cdk-nag finds nothing unacknowledged in the construct (the test\'s plain alarm topic aside)', () => {
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    const findings = report.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
    expect(findings.filter((finding) => !finding.includes(' at Sql/Alarms/'))).toEqual([]);
  });

  test('the Control Tower controls pass at synth, with only the reviewed exemptions; cfn-lint finds no error and no other warning than the functions\'', () => {
    const assembly = app.synth();
    const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as { pluginReports: { pluginName: string; conclusion: string; suppressedViolations?: { ruleName: string; violatingConstructs: { constructPath: string }[]; reason: string }[] }[] };
    const guard = report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard');
    expect(guard?.conclusion).toBe('success');
    const exempted = (guard?.suppressedViolations ?? []).flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`));
    expect(exempted.sort()).toEqual([
      'cloudwatch_log_group_encrypted_check at Sql/Effects/FlowLogs/Resource',
      'cloudwatch_log_group_encrypted_check at Sql/Effects/MigrationLog/Resource',
      'cloudwatch_log_group_encrypted_check at Sql/Effects/PostgresLog/Resource',
      'lambda_inside_vpc_check at Sql/AWS679f53fac002430cb0da5b7982bd2287/Resource',
    ]);
    for (const violation of guard?.suppressedViolations ?? []) expect(violation.reason.length).toBeGreaterThan(100);
    const lint = spawnSync('cfn-lint', ['--format', 'json', '--', assembly.getStackByName('Sql').templateFullPath], { encoding: 'utf8' });
    const lintFindings = JSON.parse(lint.stdout) as { Level: string; Rule: { Id: string }; Location: { Path: (string | number)[] } }[];
    expect(lintFindings.map((finding) => `${finding.Rule.Id} ${finding.Location.Path.slice(0, 3).join('/')}`)).toEqual(['W3005 Resources/AWS679f53fac002430cb0da5b7982bd22872D164C4C/DependsOn']);
  }, 60_000);
});
