#!/usr/bin/env node
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_STACK_NAME } from '../aws/stack-name';
import { EventPipelineStack, MANAGED_INSTANCES_CONTEXT, managedInstancesFromContext, SQL_CLUSTER_CONTEXT, sqlClusterFromContext, type SqlClusterArns } from '../example';
import { failOnEveryFinding } from '../lib';

const app = new App();

/** `cdk synth -c alarmEmail=ops@example.com` subscribes that address to the alarm topic. */
function alarmEmail(): string | undefined {
  const value: unknown = app.node.tryGetContext('alarmEmail');
  if (value === undefined || typeof value === 'string') return value;
  throw new Error(`context alarmEmail must be an email address (given ${JSON.stringify(value)})`);
}

/**
 * `cdk deploy -c sqlCluster='{"clusterArn":"...","secretArn":"...","secretKeyArn":"..."}'` puts the
 * SQL effects database on that cluster instead of a new one (`secretKeyArn` optional). The deploy
 * test sets it: moto's CloudFormation cannot create an Aurora cluster (test/deploy/moto-gaps.ts).
 */
function sqlCluster(): SqlClusterArns | undefined {
  return sqlClusterFromContext(app.node.tryGetContext(SQL_CLUSTER_CONTEXT));
}

// Environment-agnostic on purpose: synth needs no credentials, no lookups and no network.
new EventPipelineStack(app, DEFAULT_STACK_NAME, {
  description: 'effectively-once: event pipelines that stay correct under at-least-once delivery',
  alarmEmail: alarmEmail(),
  sqlCluster: sqlCluster(),
  // `cdk synth -c managedInstances=true`: every example consumer on Lambda Managed Instances (what `npm run demo -- --managed-instances` runs).
  managedInstances: managedInstancesFromContext(app.node.tryGetContext(MANAGED_INSTANCES_CONTEXT)),
});

// Policy validation plugins: an unacknowledged finding fails synth. cdk-nag v3 runs the AWS
// Solutions rules; the cfn-guard validator runs AWS Control Tower's proactive controls, the rules
// that a governed account's CloudFormation hook enforces at deploy time.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), failOnEveryFinding(new CfnGuardValidator()));
