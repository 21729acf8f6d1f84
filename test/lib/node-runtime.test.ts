/**
 * The consumers' Lambda runtime (lib/node-runtime.ts, the `runtime` prop): by default the newest
 * Node.js runtime the installed aws-cdk-lib knows, so that cdk-nag's AwsSolutions-L1 passes on an
 * aws-cdk-lib newer than this repository's lock, which is shown here by adding a runtime to
 * `Runtime.ALL` as a newer aws-cdk-lib would (a construct of aws-cdk-lib's `Runtime` registers
 * itself there; the module registry is this file's own).
 */
import { Runtime, RuntimeFamily } from 'aws-cdk-lib/aws-lambda';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONSUMER_RUNTIME, newestNodeRuntime, QueueConsumer } from '../../lib';
import { FIXTURE_HANDLER, synthQueueConsumer, testStack } from './support';

function functionOf(template: Template): { Runtime: string } {
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function')).map((resource) => resource.Properties as { Runtime: string });
  return fn as { Runtime: string };
}

test('the newest nodejs<major>.x among the known runtimes, whatever their order; other families and names are not counted', () => {
  const known = [Runtime.NODEJS_22_X, Runtime.PYTHON_3_13, Runtime.NODEJS_24_X, Runtime.NODEJS_20_X, Runtime.NODEJS_LATEST];
  expect(newestNodeRuntime(known).name).toBe('nodejs24.x');
  expect(CONSUMER_RUNTIME.name).toBe(newestNodeRuntime().name);
  expect(() => newestNodeRuntime([Runtime.PYTHON_3_13])).toThrow('aws-cdk-lib knows no nodejs<major>.x runtime: install a newer aws-cdk-lib');
});

test("a runtime set on the construct is the function's", () => {
  const template = synthQueueConsumer({ runtime: Runtime.NODEJS_22_X });
  expect(functionOf(template).Runtime).toBe('nodejs22.x');
});

test.each([
  [Runtime.PYTHON_3_13, "runtime must be a Node.js runtime (nodejs<major>.x): the consumer's code is Node.js, got python3.13"],
  [Runtime.NODEJS_18_X, 'runtime must be nodejs20.x or newer, got nodejs18.x'],
  [new Runtime('nodejs', RuntimeFamily.NODEJS), "runtime must be a Node.js runtime (nodejs<major>.x): the consumer's code is Node.js, got nodejs"],
])('refuses %s', (runtime, message) => {
  expect(() => synthQueueConsumer({ runtime })).toThrow(message);
});

describe('on an aws-cdk-lib that knows a newer Node.js runtime', () => {
  let newer: Runtime;
  beforeAll(() => {
    newer = new Runtime('nodejs99.x', RuntimeFamily.NODEJS, { supportsInlineCode: true });
  });

  /** cdk-nag's findings on the consumer (the test stack's bare alarm topic has its own). */
  function nagFindings(stack: ReturnType<typeof testStack>['stack']): string[] {
    const report = new AwsSolutionsChecks(stack).validateScope(stack);
    const findings = report.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
    return findings.filter((finding) => finding.includes(' at Test/Counter/'));
  }

  test('a consumer with no runtime set deploys on it, and cdk-nag\'s AwsSolutions-L1 passes', () => {
    const { stack, alarmTopic } = testStack();
    new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic });
    expect(functionOf(Template.fromStack(stack)).Runtime).toBe(newer.name);
    expect(nagFindings(stack)).toEqual([]);
  });

  test('an older runtime set on the construct is what cdk-nag reports, as it would for any function', () => {
    const { stack, alarmTopic } = testStack();
    new QueueConsumer(stack, 'Counter', { consumerName: 'page-view-counter', entry: FIXTURE_HANDLER, alarmTopic, runtime: Runtime.NODEJS_24_X });
    expect(nagFindings(stack)).toContain('AwsSolutions-L1 at Test/Counter/Function/Resource');
  });
});
