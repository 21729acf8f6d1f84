/**
 * `eo new consumer` in a team's own app: how it finds the stack, handlers and tests (flags, the
 * package.json key, `cdk init`'s layout), where it adds the construct to the stack (a marker, the
 * constructor's end, or lines to add by hand), and what it refuses. `npm run test:package` runs
 * the generated test and the stack in a fresh app on the packed package.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { addToStack, newAppConsumer, planAppConsumer, resolveLayout, STACK_MARKER, type ConsumerRequest } from '../../../tools/scaffold';

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

const REQUEST: ConsumerRequest = { name: 'signup-counter', source: 'sqs', pattern: 'counter' };
const ADDITION = { className: 'SignupCounter', id: 'SignupCounter', module: './signup-counter', comment: 'signup-counter' };
let app: string;

function write(files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
    writeFileSync(path.join(app, file), text);
  }
}

beforeEach(() => {
  app = mkdtempSync(path.join(os.tmpdir(), 'eo-app-scaffold-'));
  write({ 'cdk.json': '{}', 'package.json': '{ "name": "app" }', 'lib/app-stack.ts': STACK, 'handlers/.keep': '', 'test/.keep': '' });
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
    expect(read('handlers/signup-counter.ts')).toMatch(/from 'effectively-once\/runtime';[\s\S]*export const handler = transactionalHandler\(\{ name: CONSUMER_NAME, routes \}\);/);
    expect(read('lib/signup-counter.ts')).toMatch(/from 'effectively-once';[\s\S]*entry: path\.join\(__dirname, '\.\.', 'handlers', 'signup-counter\.ts'\)/);
    expect(read('test/signup-counter.test.ts')).toContain("import { CONSUMER_NAME, EVENT_TYPE, routes } from '../handlers/signup-counter';");
    for (const file of ['handlers/signup-counter.ts', 'lib/signup-counter.ts', 'test/signup-counter.test.ts']) expect(read(file)).not.toMatch(/\{\{\w+\}\}|\.\.\/lib\b|lambdas\/runtime/);
    expect(read('lib/app-stack.ts')).toContain("new SignupCounter(this, 'SignupCounter'");
  });

  test.each<[string, ConsumerRequest, Record<string, string>, RegExp]>([
    ['another source or pattern', { ...REQUEST, source: 'kinesis' }, {}, /generates --source sqs --pattern counter so far/],
    ['a file in the way', REQUEST, { 'handlers/signup-counter.ts': '' }, /handlers\/signup-counter\.ts already exists/],
    ['an id the stack uses', REQUEST, { 'lib/app-stack.ts': STACK.replace("'Alarms'", "'SignupCounterQueueUrl'") }, /already uses the id SignupCounterQueueUrl/],
  ])('refuses %s and changes nothing', (_, request, files, problem) => {
    write(files);
    const stack = readFileSync(path.join(app, 'lib/app-stack.ts'), 'utf8');
    const plan = newAppConsumer(request, { root: app, cwd: app, typescript: ts });
    expect(plan.ok ? [] : plan.problems).toEqual([expect.stringMatching(problem)]);
    expect(readFileSync(path.join(app, 'lib/app-stack.ts'), 'utf8')).toBe(stack);
  });

  test('without a safe place in the stack, writes the files and reports the lines to add', () => {
    const plan = planAppConsumer(REQUEST, { root: app, cwd: app, typescript: undefined });
    expect(plan).toMatchObject({ ok: true, byHand: { file: 'lib/app-stack.ts', reason: expect.stringMatching(/no `typescript`/) }, next: [expect.stringMatching(/^Add the lines above/), expect.anything(), expect.anything(), expect.anything(), expect.anything()] });
  });
});
