import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { type AddConsumer, EventPipelineStack } from '../../example';
import { failOnEveryFinding, KinesisConsumer } from '../../lib';
import { testApp } from '../lib/support';
import { AWS_CUSTOM_RESOURCE_PROVIDER_ID } from '../../aws/cloudformation/template';

/** The example's consumers, by construct id; the order projection's rebuilt generation is one like the others. */
const CONSUMERS = ['PageViewCounter', 'OrderProjection', 'OrderProjectionRebuild', 'ShipmentNotifier', 'AccountLedger', 'InvoicePayments'];
/** The SQL database's log groups: the VPC's flow logs, the migration's, PostgreSQL's. */
const SQL_DATABASE_LOG_GROUPS = ['FlowLogs', 'MigrationLog', 'PostgresLog'];

/** The parts of the cloud assembly's validation-report.json that these tests read. */
interface ValidationReport {
  readonly pluginReports: readonly PluginReport[];
}

interface PluginReport {
  readonly pluginName: string;
  readonly conclusion: string;
  readonly violations: readonly ReportedViolation[];
  readonly suppressedViolations?: readonly SuppressedViolation[];
}

interface ReportedViolation {
  readonly ruleName: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}

interface SuppressedViolation extends ReportedViolation {
  readonly acknowledgedAt: string;
  readonly reason: string;
}

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/**
 * A fresh app whose cloud assembly goes to a temporary directory, with the Control Tower rules
 * registered as bin/app.ts registers them.
 */
function governedApp(): { app: App; outdir: string } {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-governance-'));
  outdirs.push(outdir);
  const app = testApp({ outdir });
  Validations.of(app).addPlugins(failOnEveryFinding(new CfnGuardValidator()));
  return { app, outdir };
}

/**
 * Synthesizes the pipeline and returns the cfn-guard plugin's part of the validation report.
 * Synth throws, with the findings in its message, when one is not acknowledged.
 */
function controlTowerReport(consumers?: readonly AddConsumer[]): PluginReport {
  const { app, outdir } = governedApp();
  new EventPipelineStack(app, 'EffectivelyOnce', { alarmEmail: 'oncall@example.com', consumers });
  app.synth();
  const report = JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as ValidationReport;
  const guard = report.pluginReports.find((plugin) => plugin.pluginName === 'cdk-validator-cfnguard');
  if (!guard) throw new Error('the validation report holds no cdk-validator-cfnguard report');
  return guard;
}

/** Each finding as "<rule> at <construct path>". */
function findings(violations: readonly ReportedViolation[]): string[] {
  return violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`));
}

describe('AWS Control Tower proactive controls (cfn-guard)', () => {
  test('the app as bin/app.ts builds it has no unacknowledged finding', () => {
    const report = controlTowerReport();
    expect(findings(report.violations)).toEqual([]);
    expect(report.conclusion).toBe('success');
  });

  test('a finding beside acknowledged ones fails synth', () => {
    const { app } = governedApp();
    const stack = new EventPipelineStack(app, 'EffectivelyOnce', { consumers: [] });
    new Key(stack, 'KeyThatLendsItselfOut', { enableKeyRotation: true });
    expect(() => app.synth()).toThrow(/CT\.KMS\.PR\.3.*\n.*EffectivelyOnce\/KeyThatLendsItselfOut/);
  });

  describe('the examples', () => {
    let exempted: { finding: string; resource: string; at: string; reason: string }[] = [];
    beforeAll(() => {
      // The examples alone: a generated consumer brings the exemptions of its constructs.
      const suppressed = controlTowerReport([]).suppressedViolations ?? [];
      exempted = suppressed.flatMap((v) =>
        v.violatingConstructs.map((c) => ({
          finding: `${v.ruleName} at ${c.constructPath}`,
          resource: c.constructPath,
          at: v.acknowledgedAt,
          reason: v.reason,
        })),
      );
    });

    test('exempt only the reviewed findings, each on its own resource', () => {
      const expected = [
        ...CONSUMERS.flatMap((consumer) => [
          `cloudwatch_log_group_encrypted_check at EffectivelyOnce/${consumer}/LogGroup/Resource`,
          `lambda_inside_vpc_check at EffectivelyOnce/${consumer}/Function/Resource`,
        ]),
        // The SQL database's (lib/sql-effect-database.ts, reviewed in its own test): three log groups, and the migration's provider.
        ...SQL_DATABASE_LOG_GROUPS.map((logGroup) => `cloudwatch_log_group_encrypted_check at EffectivelyOnce/SqlEffects/${logGroup}/Resource`),
        `lambda_inside_vpc_check at EffectivelyOnce/${AWS_CUSTOM_RESOURCE_PROVIDER_ID}/Resource`,
      ];
      expect(exempted.map((e) => e.finding).sort()).toEqual(expected.sort());
      // Acknowledged on the resource's own construct, not on a consumer or the stack.
      for (const { resource, at } of exempted) expect(`${at}/Resource`).toBe(resource);
    });

    test.each([
      ['cloudwatch_log_group_encrypted_check', CONSUMERS.length + SQL_DATABASE_LOG_GROUPS.length, /encrypts every log group at rest.*IAM decides/],
      ['lambda_inside_vpc_check', CONSUMERS.length + 1, /calls only (AWS APIs|the RDS Data API).*protect nothing/],
    ])('give each exemption of %s its reason', (rule, count, reason) => {
      const reasons = exempted.filter((e) => e.finding.startsWith(`${rule} at `)).map((e) => e.reason);
      expect(reasons).toHaveLength(count);
      for (const given of reasons) expect(given).toMatch(reason);
    });
  });

  test("a stream consumer with onFailure: 's3' adds only its function's and its archive bucket's reviewed exemptions", () => {
    const archived: AddConsumer = (pipeline) =>
      new KinesisConsumer(pipeline, 'ArchivedClicks', { consumerName: 'archived-clicks', entry: pipeline.handlerEntry('order-projection.ts'), alarmTopic: pipeline.alarmTopic.topic, onFailure: 's3' });
    const report = controlTowerReport([archived]);
    expect(findings(report.violations)).toEqual([]);
    const own = (report.suppressedViolations ?? []).flatMap((v) => v.violatingConstructs.filter((c) => c.constructPath.includes('/ArchivedClicks/')).map((c) => `${v.ruleName} at ${c.constructPath}`));
    expect(own.sort()).toEqual([
      'cloudwatch_log_group_encrypted_check at EffectivelyOnce/ArchivedClicks/LogGroup/Resource',
      'lambda_inside_vpc_check at EffectivelyOnce/ArchivedClicks/Function/Resource',
      's3_bucket_logging_enabled_check at EffectivelyOnce/ArchivedClicks/FailureArchive/Bucket/Resource',
      's3_bucket_object_lock_enabled_check at EffectivelyOnce/ArchivedClicks/FailureArchive/Bucket/Resource',
    ]);
  });

  describe('the fixes', () => {
    const template = Template.fromStack(new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [] }));

    test('CT.KMS.PR.3: every key lets only AWS services create grants', () => {
      const keys = Object.values(template.findResources('AWS::KMS::Key'));
      // The three topics' and the SQL database's.
      expect(keys).toHaveLength(4);
      for (const key of keys) {
        expect(key.Properties.KeyPolicy.Statement).toContainEqual({
          Sid: 'DenyGrantsExceptForAwsServices',
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'kms:CreateGrant',
          Resource: '*',
          Condition: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
        });
      }
    });

    test('CT.SQS.PR.1: a stream consumer\'s DLQ declares itself one (allow-all: deny-all does not count)', () => {
      const queues = Object.entries(template.findResources('AWS::SQS::Queue'));
      const allowAll = queues.filter(([, queue]) => queue.Properties.RedriveAllowPolicy?.redrivePermission === 'allowAll');
      expect(allowAll.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['OrderProjectionDlq', 'OrderProjectionRebuildDlq', 'ShipmentNotifierDlq', 'SqlEffectsDlq']);
    });

    test('CT.CLOUDWATCH.PR.2: every log group keeps its logs a year', () => {
      const logGroups = Object.values(template.findResources('AWS::Logs::LogGroup'));
      expect(logGroups).toHaveLength(CONSUMERS.length + SQL_DATABASE_LOG_GROUPS.length);
      expect(logGroups.map((logGroup) => logGroup.Properties.RetentionInDays).filter((days) => days !== 365)).toEqual([]);
    });
  });
});
