import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { EventPipelineStack } from '../../example';
import { testApp } from '../lib/support';

/** cdk-nag's acknowledgements carry no plugin prefix, so CDK files them under its annotations. */
const CDK_NAG_ID = /^annotation::/i;

/**
 * Every cdk-nag acknowledgement in the tree, as "<construct path> <rule id>", with its reason.
 * Those of other plugins (the Control Tower rules) are test/example/governance.test.ts's.
 */
function acknowledgements(root: IConstruct): Map<string, string> {
  const found = new Map<string, string>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        if (CDK_NAG_ID.test(id)) found.set(`${construct.node.path} ${id.replace(CDK_NAG_ID, '')}`, reason);
      }
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  const app = testApp();
  const stack = new EventPipelineStack(app, 'EffectivelyOnce', { alarmEmail: 'oncall@example.com' });

  test('finds nothing unacknowledged: no error and no warning', () => {
    const report = new AwsSolutionsChecks(app).validateScope(stack);
    const findings = report.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`),
    );
    expect(findings).toEqual([]);
  });

  test('acknowledges only the reviewed findings, each on one resource, each with a reason', () => {
    // The examples alone: a generated consumer brings the acknowledgements of its constructs.
    const examples = new EventPipelineStack(testApp(), 'EffectivelyOnce', { consumers: [] });
    const found = acknowledgements(examples);
    expect([...found.keys()].sort()).toEqual([
      'EffectivelyOnce/OrderProjection/Dlq AwsSolutions-SQS3',
      'EffectivelyOnce/OrderProjectionRebuild/Dlq AwsSolutions-SQS3',
      'EffectivelyOnce/ShipmentNotifier/Dlq AwsSolutions-SQS3',
      'EffectivelyOnce/ShipmentNotifier/Role AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      'EffectivelyOnce/ShipmentNotifier/Role AwsSolutions-IAM5[Resource::*]',
      // The SQL database's (lib/sql-effect-database.ts): its expiry DLQ is a DLQ itself; enhanced
      // monitoring's streams are named after an instance that needs the role first.
      'EffectivelyOnce/SqlEffects/Dlq AwsSolutions-SQS3',
      'EffectivelyOnce/SqlEffects/MonitoringRole/DefaultPolicy AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:RDSOSMetrics:log-stream:*]',
    ]);
    for (const reason of found.values()) expect(reason.length).toBeGreaterThan(40);
  });

  test('synthesizes with the checks registered as bin/app.ts registers them', () => {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});
