/**
 * `eo new consumer` end to end, in a temporary copy of the repository (node_modules linked): the
 * CLI writes the handler, the construct and the test and registers the consumer; the copy
 * type-checks, and synthesizes with one more event source mapping and DLQ alarm per consumer (a SQL
 * consumer connected to the stack's SQL database, its tables made at deploy); the generated tests
 * pass on this run's local engines (a SQL consumer's on a PostgreSQL of its own behind the local
 * Data API); and a refused name changes nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cdkJson from '../../../cdk.json';
import { EventPipelineStack } from '../../../example';
import { renderArchitecture } from '../../../tools/architecture/document';
import { applyChanges, newConsumer, planConsumer, WriteError, type ConsumerRequest } from '../../../tools/scaffold';
import type { Template as CfnTemplate } from '../../../aws/cloudformation/template';
import { heldMessagesQueue } from '../../helpers/alarms';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** What the generator, `tsc`, the stack and the generated tests need; `test/` only its helpers. */
const COPIED = ['bin', 'lib', 'lambdas', 'aws', 'operations', 'tools', 'emulator', 'example', 'cli', 'test/helpers', 'cdk.json', 'tsconfig.json', 'package.json', 'package-lock.json', 'jest.config.js'];
const BIN = path.join(ROOT, 'node_modules', '.bin');

/** Through the CLI, as a user runs it: one per source, one per pattern. */
const BY_CLI: ConsumerRequest[] = [
  { name: 'audit-trail', source: 'sqs', pattern: 'counter' },
  { name: 'order-history', source: 'kinesis', pattern: 'upsert' },
  { name: 'welcome-email', source: 'dynamodb-stream', pattern: 'external' },
  { name: 'payment-totals', source: 'sqs', pattern: 'sql' },
];
/** In process, to cover the other combinations. */
const IN_PROCESS: ConsumerRequest[] = [
  { name: 'sqs-upsert', source: 'sqs', pattern: 'upsert' },
  { name: 'sqs-external', source: 'sqs', pattern: 'external' },
  { name: 'kinesis-counter', source: 'kinesis', pattern: 'counter' },
  { name: 'kinesis-external', source: 'kinesis', pattern: 'external' },
  { name: 'stream-counter', source: 'dynamodb-stream', pattern: 'counter' },
  { name: 'stream-upsert', source: 'dynamodb-stream', pattern: 'upsert' },
  { name: 'kinesis-sql', source: 'kinesis', pattern: 'sql' },
  { name: 'stream-sql', source: 'dynamodb-stream', pattern: 'sql' },
];
const ALL = [...BY_CLI, ...IN_PROCESS];

let copy: string;

function copyRepository(): string {
  const target = mkdtempSync(path.join(os.tmpdir(), 'eo-scaffold-'));
  for (const entry of COPIED) {
    if (existsSync(path.join(ROOT, entry))) cpSync(path.join(ROOT, entry), path.join(target, entry), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(target, 'node_modules'), 'dir');
  return target;
}

/** Every file of the copy (node_modules aside) with a hash of its content. */
function snapshot(dir: string = copy, prefix = ''): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir).sort()) {
    if (entry === 'node_modules') continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) Object.assign(files, snapshot(full, `${prefix}${entry}/`));
    else files[`${prefix}${entry}`] = createHash('sha1').update(readFileSync(full)).digest('hex');
  }
  return files;
}

function eo(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(path.join(BIN, 'tsx'), ['bin/eo.ts', ...args], { cwd: copy, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs a command in the copy without blocking this process, so that two can run side by side. */
function run(command: string, args: readonly string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: copy, env: { ...process.env, CI: 'true' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The copy's template, and what cdk-nag (AwsSolutions) finds in its stack. */
interface Synthesized {
  readonly template: CfnTemplate;
  readonly findings: readonly string[];
}

/**
 * The copy's stack, synthesized in a process of its own (bundling skipped): this process has read
 * the copy's files already, and its module system keeps what it read.
 */
async function synthesizeCopy(): Promise<Synthesized> {
  const script = path.join(copy, 'synth-in-process.ts');
  writeFileSync(
    script,
    [
      "import { App } from 'aws-cdk-lib';",
      "import { AwsSolutionsChecks } from 'cdk-nag';",
      "import * as cdkJson from './cdk.json';",
      "import { EventPipelineStack } from './example';",
      "const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-path-metadata': true }, builtinCloudFormationValidation: false });",
      "const stack = new EventPipelineStack(app, 'EffectivelyOnce');",
      'const nag = new AwsSolutionsChecks(app).validateScope(stack);',
      'const findings = nag.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));',
      'process.stdout.write(JSON.stringify({ template: app.synth().getStackByName(stack.stackName).template, findings }));',
    ].join('\n'),
  );
  const result = await run(path.join(BIN, 'tsx'), [script]);
  rmSync(script);
  if (result.status !== 0) throw new Error(`the copy did not synthesize:\n${result.output}`);
  return JSON.parse(result.output) as Synthesized;
}

function count(template: CfnTemplate, type: string, where: (props: Record<string, unknown>) => boolean = () => true): number {
  return Object.values(template.Resources).filter((resource) => resource.Type === type && where(resource.Properties ?? {})).length;
}

const isDepthAlarm = (props: Record<string, unknown>): boolean => heldMessagesQueue(props) !== undefined;

let synthesized: Promise<Synthesized> | undefined;
/** The copy's template and cdk-nag's findings, synthesized once for the tests that read them. */
const copySynthesized = (): Promise<Synthesized> => (synthesized ??= synthesizeCopy());

/** The logical ids of the resources of `type` whose properties' JSON contains `text`. */
function idsWith(template: CfnTemplate, type: string, text: string): string[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type && JSON.stringify(resource.Properties ?? {}).includes(text))
    .map(([id]) => id);
}

beforeAll(() => {
  copy = copyRepository();
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('eo new consumer', () => {
  test.each(BY_CLI)('writes $name ($source, $pattern), registers it, and says what to do next', ({ name, source, pattern }) => {
    const result = eo('new', 'consumer', name, '--source', source, '--pattern', pattern);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    for (const file of [`example/handlers/${name}.ts`, `example/consumers/${name}.ts`, `test/example/generated/${name}.int.test.ts`]) {
      expect(result.stdout).toContain(`create  ${file}`);
      expect(existsSync(path.join(copy, file))).toBe(true);
    }
    expect(result.stdout).toContain('update  example/consumers/index.ts');
    expect(result.stdout).toContain(`npx jest test/example/generated/${name}.int.test.ts`);
    expect(result.stdout).toContain('npm run docs');
    const registry = readFileSync(path.join(copy, 'example/consumers/index.ts'), 'utf8');
    const pascal = name.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
    expect(registry).toContain(`import { add${pascal} } from './${name}';`);
    expect(registry).toContain(`  add${pascal},`);
  });

  test('generates the other combinations of source and pattern', () => {
    for (const request of IN_PROCESS) {
      expect(newConsumer(request, { root: copy })).toMatchObject({ ok: true });
    }
  });

  // tsc on the whole copy and a second jest: the slow part of this file, and slower still on a busy machine.
  test('the copy type-checks, and its generated tests pass on the local engines', async () => {
    // Side by side: tsc is one process, the copy's jest uses this run's engines (their endpoints are in the environment).
    const [tsc, tests] = await Promise.all([
      run(path.join(BIN, 'tsc'), ['--noEmit', '-p', '.']),
      run(process.execPath, [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), 'test/example/generated', '--ci']),
    ]);
    expect(tsc).toEqual({ status: 0, output: '' });
    expect(tests.output).toMatch(new RegExp(`Tests:\\s+${ALL.length * 2} passed, ${ALL.length * 2} total`));
    expect(tests.status).toBe(0);
  }, 300_000);

  test('the copy synthesizes with one more event source mapping and DLQ depth alarm per consumer, and cdk-nag finds nothing', async () => {
    const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
    const before = Template.fromStack(new EventPipelineStack(app, 'Before')).toJSON() as CfnTemplate;
    const { template: after, findings } = await copySynthesized();
    expect(findings).toEqual([]);
    expect(count(after, 'AWS::Lambda::EventSourceMapping')).toBe(count(before, 'AWS::Lambda::EventSourceMapping') + ALL.length);
    expect(count(after, 'AWS::CloudWatch::Alarm', isDepthAlarm)).toBe(count(before, 'AWS::CloudWatch::Alarm', isDepthAlarm) + ALL.length);
    const page = renderArchitecture(after);
    for (const { name } of ALL) expect(page).toContain(`| \`${name}\` |`);
  });

  test('a SQL consumer is connected to the stack\'s SQL database: the Data API\'s variables and grant, and its tables made at deploy', async () => {
    const { template } = await copySynthesized();
    for (const { name } of ALL.filter((request) => request.pattern === 'sql')) {
      const snake = name.replace(/-/g, '_');
      const [functionId] = Object.entries(template.Resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && JSON.stringify(resource.Properties ?? {}).includes(`"CONSUMER_NAME":"${name}"`)).map(([id]) => id);
      const variables = (template.Resources[functionId ?? '']?.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
      expect(variables).toMatchObject({ DATA_API_RESOURCE_ARN: expect.anything(), DATA_API_SECRET_ARN: expect.anything(), DATA_API_DATABASE: 'effects', SQL_DEDUP_TABLE: 'eo_dedup', ENTRIES_TABLE: `${snake}_entries`, TOTALS_TABLE: `${snake}_totals` });
      const [role] = (template.Resources[functionId ?? '']?.Properties?.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'];
      const policies = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles).includes(`{"Ref":"${role}"}`));
      expect(JSON.stringify(policies)).toContain('"rds-data:BeginTransaction"');
      expect(JSON.stringify(policies)).toContain('"secretsmanager:GetSecretValue"');
      for (const table of [`${snake}_entries`, `${snake}_totals`]) expect(idsWith(template, 'Custom::AWS', `CREATE TABLE IF NOT EXISTS ${table} (`)).toHaveLength(1);
    }
  });
});

describe('eo new consumer refuses, and changes nothing', () => {
  test.each([
    [['Audit_Trail', '--source', 'sqs'], /not a valid consumer name/],
    [['audit-trail', '--source', 'sqs'], /example\/handlers\/audit-trail\.ts already exists[\s\S]*consumer named audit-trail[\s\S]*construct ids? .*AuditTrail\b/],
  ])('eo new consumer %j', (args, message) => {
    const before = snapshot();
    const result = eo('new', 'consumer', ...args);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/refused .*; nothing was changed/);
    expect(result.stderr).toMatch(message);
    expect(snapshot()).toEqual(before);
  });

  test.each<[string, ConsumerRequest, RegExp]>([
    ['a reserved word', { name: 'delete', source: 'sqs', pattern: 'counter' }, /reserved word/],
    ['a trailing hyphen', { name: 'audit-', source: 'sqs', pattern: 'counter' }, /not a valid consumer name/],
    ['an example consumer', { name: 'page-view-counter', source: 'kinesis', pattern: 'upsert' }, /page-view-counter\.ts already exists[\s\S]*consumer named page-view-counter/],
    ['a construct id of the stack', { name: 'orders-table', source: 'kinesis', pattern: 'upsert' }, /construct ids? .*OrdersTable\b/],
    ['an output of the stack', { name: 'orders', source: 'kinesis', pattern: 'upsert' }, /construct ids? .*OrdersStreamName\b/],
  ])('%s', (_, request, message) => {
    const before = snapshot();
    const plan = newConsumer(request, { root: copy });
    expect(plan.ok).toBe(false);
    expect(plan.ok ? '' : plan.problems.join('\n')).toMatch(message);
    expect(snapshot()).toEqual(before);
  });

  test('a registry without its markers', () => {
    const registry = path.join(copy, 'example/consumers/index.ts');
    const original = readFileSync(registry, 'utf8');
    writeFileSync(registry, original.replace('  // eo:generated-consumers:end\n', ''));
    const before = snapshot();
    const plan = planConsumer({ name: 'no-markers', source: 'sqs', pattern: 'counter' }, { root: copy, existing: () => ({ constructIds: new Set(), consumerNames: new Set() }) });
    expect(plan).toMatchObject({ ok: false, problems: [expect.stringMatching(/eo:generated-consumers:end. exactly once \(found 0\)/)] });
    expect(snapshot()).toEqual(before);
    writeFileSync(registry, original);
  });

  test('a write that fails part way is rolled back', () => {
    const plan = planConsumer({ name: 'half-written', source: 'sqs', pattern: 'counter' }, { root: copy, existing: () => ({ constructIds: new Set(), consumerNames: new Set() }) });
    if (!plan.ok) throw new Error(plan.problems.join('\n'));
    // A directory where the test file goes: the third write fails, after two files were written.
    const blocker = path.join(copy, 'test/example/generated/half-written.int.test.ts');
    mkdirSync(blocker);
    const before = snapshot();
    expect(() => applyChanges(copy, plan.changes)).toThrow(WriteError);
    try {
      applyChanges(copy, plan.changes);
    } catch (error) {
      expect(error).toMatchObject({ rolledBack: true, message: expect.stringMatching(/writing test\/example\/generated\/half-written\.int\.test\.ts failed .*nothing was changed/) });
    }
    expect(snapshot()).toEqual(before);
    rmSync(blocker, { recursive: true });
  });
});
