import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import * as cdkJson from '../../cdk.json';

/** A handler file that the constructs under test can point at. */
export const FIXTURE_HANDLER = path.join(__dirname, 'fixtures', 'handler.ts');

/** Options of {@link testApp}. */
export interface TestAppOptions {
  /** Run esbuild on the functions' assets. */
  readonly bundle?: boolean;
  /** Where to write the cloud assembly. */
  readonly outdir?: string;
}

/**
 * An app with the project's feature flags (cdk.json), so tests see what `cdk synth` produces.
 * Asset bundling is skipped unless asked for: esbuild would dominate the test time.
 * CDK's built-in CloudFormation validation is off: its 9 MB WebAssembly engine costs seconds per
 * test file and keeps jest workers from exiting cleanly; `cdk synth` still runs it.
 */
export function testApp(options: TestAppOptions = {}): App {
  const skipBundling = options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] };
  return new App({
    context: { ...cdkJson.context, ...skipBundling },
    builtinCloudFormationValidation: false,
    outdir: options.outdir,
  });
}

/** A stack to put one construct under test in, with a plain topic for its alarms. */
export function testStack(): { stack: Stack; alarmTopic: Topic } {
  const stack = new Stack(testApp(), 'Test');
  return { stack, alarmTopic: new Topic(stack, 'Alarms') };
}

/** The logical ID of the only resource of `type` whose ID starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix = ''): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with "${prefix}", found ${ids.join(', ')}`);
  return ids[0];
}
