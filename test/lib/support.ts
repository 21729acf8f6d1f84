import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import * as cdkJson from '../../cdk.json';
import { QueueConsumer, type QueueConsumerProps } from '../../lib';

/** A handler file that the constructs under test can point at. */
export const FIXTURE_HANDLER = path.join(__dirname, 'fixtures', 'handler.ts');

/** Options of {@link testApp}. */
export interface TestAppOptions {
  /** Run esbuild on the functions' assets. */
  readonly bundle?: boolean;
  /** Where to write the cloud assembly. */
  readonly outdir?: string;
  /** Record each asset's path in its resource's metadata, as the CDK CLI asks for: local mode finds the bundles by it. */
  readonly assetMetadata?: boolean;
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
    context: { ...cdkJson.context, ...skipBundling, ...(options.assetMetadata && { 'aws:cdk:enable-asset-metadata': true }) },
    builtinCloudFormationValidation: false,
    outdir: options.outdir ?? temporaryOutdir(),
  });
}

/**
 * The cloud assemblies of this test file's apps, removed after it. CDK's own default is a new
 * folder in the OS's temporary directory that nothing removes: a test run left thousands.
 */
const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs.splice(0)) fs.rmSync(outdir, { recursive: true, force: true });
});

function temporaryOutdir(): string {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'eo-test-cdk.out-'));
  outdirs.push(outdir);
  return outdir;
}

/** A stack to put one construct under test in, with a plain topic for its alarms. */
export function testStack(): { stack: Stack; alarmTopic: Topic } {
  const stack = new Stack(testApp(), 'Test');
  return { stack, alarmTopic: new Topic(stack, 'Alarms') };
}

/** Builds a QueueConsumer (of page-view-counter, on the fixture handler) with `overrides` and returns its template. */
export function synthQueueConsumer(overrides: Partial<QueueConsumerProps> = {}): Template {
  const { stack, alarmTopic } = testStack();
  new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, ...overrides });
  return Template.fromStack(stack);
}

/** The logical ID of the only resource of `type` whose ID starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix = ''): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with "${prefix}", found ${ids.join(', ')}`);
  return ids[0];
}

/** A statement of an IAM policy document, as the template holds it. */
interface PolicyStatement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** A resource of a statement as a short name: a logical ID, `<id>.<attribute>` for another attribute than `Arn`, or the string. */
function resourceName(resource: unknown): string {
  const getAtt = (resource as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
  if (getAtt) return getAtt[1] === 'Arn' ? getAtt[0] : `${getAtt[0]}.${getAtt[1]}`;
  return typeof resource === 'string' ? resource : JSON.stringify(resource);
}

/** The Allow statements of the policies whose logical IDs start with `policyPrefix`. */
function allowStatements(template: Template, policyPrefix: string): PolicyStatement[] {
  return Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith(policyPrefix))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as PolicyStatement[])
    .filter((statement) => statement.Effect === 'Allow');
}

/**
 * The allowed actions of one service (`dynamodb`, `kms`) in the policies whose logical IDs start
 * with `policyPrefix`, by resource name ({@link resourceName}), each list sorted.
 */
export function grantedActions(template: Template, service: string, policyPrefix = ''): Record<string, string[]> {
  const granted = new Map<string, Set<string>>();
  for (const statement of allowStatements(template, policyPrefix)) {
    const actions = [statement.Action].flat().filter((action) => action.startsWith(`${service}:`));
    for (const name of actions.length > 0 ? [statement.Resource].flat().map(resourceName) : []) {
      granted.set(name, new Set([...(granted.get(name) ?? []), ...actions]));
    }
  }
  return Object.fromEntries([...granted].map(([name, actions]) => [name, [...actions].sort()]));
}
