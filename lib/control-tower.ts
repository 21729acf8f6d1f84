import {
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Validations,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The namespace of the Control Tower proactive controls' findings at synth time: the name of the
 * `@cdklabs/cdk-validator-cfnguard` plugin, which runs the controls' cfn-guard rules.
 */
const CONTROL_TOWER_PLUGIN = 'cdk-validator-cfnguard';

/** The Control Tower proactive controls that a construct here declines, by their cfn-guard rule names. */
export const ControlTowerRule = {
  /** CT.LAMBDA.PR.3: a function runs in a customer-managed VPC. */
  LAMBDA_IN_VPC: 'lambda_inside_vpc_check',
  /** CT.CLOUDWATCH.PR.3: a log group is encrypted with a KMS key. */
  LOG_GROUP_ENCRYPTED: 'cloudwatch_log_group_encrypted_check',
  /** CT.S3.PR.2: a bucket has server access logging. */
  S3_ACCESS_LOGGING: 's3_bucket_logging_enabled_check',
  /** CT.S3.PR.9: a bucket has S3 Object Lock. */
  S3_OBJECT_LOCK: 's3_bucket_object_lock_enabled_check',
} as const;

/** A rule name of {@link ControlTowerRule}. */
export type ControlTowerRule = (typeof ControlTowerRule)[keyof typeof ControlTowerRule];

/**
 * Records why `scope` does not follow a Control Tower proactive control, so that synth reports it
 * as acknowledged instead of failing. This holds at synth time only: Control Tower's hook has no
 * per-resource exemption, so an account that enforces the control refuses the resource anyway.
 */
export function declineControlTowerRule(scope: IConstruct, rule: ControlTowerRule, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${CONTROL_TOWER_PLUGIN}::${rule}`, reason });
}

/**
 * Wraps the Control Tower plugin (`new CfnGuardValidator()`) so that every finding it reports is
 * an error. Its findings carry no severity, and once an acknowledgement suppresses one of them,
 * aws-cdk-lib (2.276) judges the plugin's report by the severities left: without this, the other
 * findings would be printed and synth would still succeed.
 */
export function failOnEveryFinding(plugin: IPolicyValidationPlugin): IPolicyValidationPlugin {
  return {
    name: plugin.name,
    version: plugin.version,
    ruleIds: plugin.ruleIds,
    validate: (context: IPolicyValidationContext): PolicyValidationPluginReport => {
      const report = plugin.validate(context);
      return { ...report, violations: report.violations.map((violation) => ({ ...violation, severity: 'error' })) };
    },
  };
}
