/**
 * The boundaries between the roles (eslint.config.mjs): a snippet linted as if it were a file of
 * one role fails on an import that the role may not make, with the boundary in the message, and
 * passes on one that it may.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '..', '..');

/** A snippet, linted as if it were the file `file` (relative to the root). */
type Snippet = readonly [file: string, code: string];

/**
 * Lints each snippet with ESLint's Node API and the repository's config, running the boundary
 * rules only: the typed rules need the file on disk, where the project service finds it, and a
 * snippet is not. It runs in a child process: the config is an ES module, which ESLint loads with
 * `import()`, and Jest's module sandbox refuses that without --experimental-vm-modules.
 */
async function boundaryMessages(snippets: readonly Snippet[]): Promise<string[][]> {
  const script = `
    import { ESLint } from 'eslint';
    const snippets = JSON.parse(process.argv[1]);
    const boundaryRules = ['no-restricted-imports', 'no-restricted-syntax'];
    const eslint = new ESLint({
      cwd: process.cwd(),
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
      ruleFilter: ({ ruleId }) => boundaryRules.includes(ruleId),
    });
    const results = [];
    for (const [file, code] of snippets) {
      const [result] = await eslint.lintText(code, { filePath: file });
      const fatal = result.messages.find((message) => message.fatal);
      if (fatal) throw new Error(file + ' did not parse: ' + fatal.message);
      results.push(result.messages.map((message) => message.message));
    }
    process.stdout.write(JSON.stringify(results));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '--eval', script, JSON.stringify(snippets)], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as string[][];
}

/** Imports each role may not make, and the boundary that the message must name. */
const CROSSINGS: readonly (readonly [file: string, code: string, boundary: string])[] = [
  ['lambdas/runtime/x.ts', "export { Stack } from 'aws-cdk-lib';", 'lambdas/runtime may import only aws/'],
  ['lambdas/runtime/x.ts', "export { listDlqs } from '../../operations/dlq';", 'lambdas/runtime may import only aws/'],
  ['lambdas/runtime/x.ts', "export { handler } from '../handlers/x';", 'lambdas/runtime may import only aws/'],
  // The runtime's rooms: a strict DAG (docs/architecture.md, "The runtime's rooms").
  ['lambdas/runtime/consumer/x.ts', "export { TransactionalCommitter } from '../stores/dynamodb/committer';", "lambdas/runtime/consumer may import only aws/ and the runtime's core, events, decoding and failures rooms: the consumer may not import a store"],
  ['lambdas/runtime/stores/dynamodb/x.ts', "export { x } from '../postgres/x';", 'a store may not import another store'],
  ['lambdas/runtime/stores/dynamodb/x.ts', "export { publishToSqs } from '../../producing/producer';", "lambdas/runtime/stores/dynamodb may import only aws/ and the runtime's core, events, decoding, failures and consumer rooms"],
  ['lambdas/runtime/core/x.ts', "export { createConsumer } from '../consumer/consumer';", 'lambdas/runtime/core may import only aws/: the core may not import another room or a store'],
  ['lambdas/runtime/core/x.ts', "export { createConsumer } from '..';", 'lambdas/runtime/core may import only aws/'],
  ['lambdas/runtime/decoding/x.ts', "export { DlqSender } from '../failures/dlq';", "lambdas/runtime/decoding may import only aws/ and the runtime's core and events rooms"],
  ['lambdas/runtime/producing/x.ts', "export { createConsumer } from '../consumer/consumer';", "lambdas/runtime/producing may import only aws/ and the runtime's core and events rooms: it may not import the consumer or a store"],
  ['lambdas/runtime/events/x.ts', "export { increment } from '../stores/dynamodb/effects';", 'it may not import the consumer or a store'],
  ['lambdas/runtime/failures/x.ts', "export { Settler } from '../consumer/settle';", 'it may not import the consumer or a store'],
  ['lambdas/runtime/consumer/x.ts', "export { listDlqs } from '../../../operations/dlq';", 'lambdas/runtime/consumer may import only aws/'],
  ['lambdas/runtime/one-call/x.ts', "export { Stack } from 'aws-cdk-lib';", 'lambdas/runtime/one-call may import only aws/'],
  ['lambdas/runtime/stores/dynamodb/x.ts', "export * from 'esbuild';", 'lambdas/runtime/stores/dynamodb is published, so it may import no devDependency'],
  ['lambdas/runtime/stores/dynamodb/a/b/c/d/e/f/g/x.ts', "export { x } from './y';", 'lambdas/runtime/stores/dynamodb/ is checked only 6 folders deep'],
  ['lambdas/runtime/a/b/c/d/e/f/g/x.ts', "export { x } from './y';", 'lambdas/runtime/ is checked only 6 folders deep'],
  ['aws/streams/x.ts', "export type { Construct } from 'constructs';", 'aws/ may import nothing of ours'],
  ['aws/x.ts', "export { QueueConsumer } from '../lib';", 'aws/ may import nothing of ours'],
  ['lib/x.ts', "export { EventPipelineStack } from '../example';", 'lib may import only aws/'],
  ['lib/x.ts', "export { createConsumer } from '../lambdas/runtime';", 'lib may import only aws/'],
  ['lib/x.ts', "export { build } from 'esbuild';", 'lib is published, so it may import no devDependency'],
  ['cli/x.ts', "export { listDlqs } from '../operations/dlq';", 'cli may import only aws/'],
  ['operations/dlq/x.ts', "export { startEngines } from '../../emulator/engines';", 'operations may import only aws/, lambdas/runtime/ and cli/'],
  ['operations/dlq/x.ts', "export { Stack } from 'aws-cdk-lib';", 'operations may import only aws/, lambdas/runtime/ and cli/, not aws-cdk-lib'],
  ['operations/dlq/x.ts', "export async function engines() { return import('../../emulator/engines'); }", 'operations may import only aws/'],
  ['operations/cli/x.ts', "export const cdk: unknown = require('aws-cdk-lib');", 'operations may import only aws/, lambdas/runtime/ and cli/, not aws-cdk-lib'],
  ['operations/dlq/x.ts', "export { z } from 'zod';", 'operations is published, so it may import no devDependency'],
  ['example/handlers/x.ts', "export { PermanentError } from '../../lambdas/runtime/core/errors';", 'example may import only the indexes of lib/ and lambdas/runtime'],
  ['example/consumers/x.ts', "export { QueueConsumer } from '../../lib/queue-consumer';", 'example may import only the indexes of lib/ and lambdas/runtime'],
  ['example/x.ts', "export { startEngines } from '../emulator/engines';", 'example may import only the indexes of lib/'],
  ['emulator/stack/x.ts', "export { EventPipelineStack } from '../../example';", 'emulator may import only aws/, lambdas/runtime/, operations/ and cli/ (example/ only in emulator/demo and emulator/chaos)'],
  ['emulator/x.ts', "export { runBenchmark } from '../tools/bench';", 'emulator may import only aws/'],
  ['emulator/demo/x.ts', "export { lambdaContext } from '../../test/helpers/events';", 'emulator/demo may import only aws/, lambdas/runtime/, operations/, cli/ and example/'],
  ['emulator/event-sources/x.ts', "export { startFauxqs } from 'fauxqs';", 'only emulator/engines may import an engine'],
  ['tools/bench/x.ts', "export { lambdaContext } from '../../test/helpers/events';", 'tools may import anything but test/'],
  ['bin/x.ts', "export { lambdaContext } from '../test/helpers/events';", 'bin may import anything but test/'],
  ['lib/a/b/c/d/e/f/g/x.ts', "export { x } from './y';", 'lib/ is checked only 6 folders deep'],
];

/** Every devDependency of package.json that is neither a dependency nor a peer, as the config reads them. */
function devOnlyPackages(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const other = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  return Object.keys(manifest.devDependencies ?? {}).filter((name) => !other.has(name));
}

/** Each of them, imported by the runtime: refused, whichever it is. */
const DEV_ONLY_CROSSINGS = devOnlyPackages().map((name) => ['lambdas/runtime/x.ts', `export * from '${name}';`, 'lambdas/runtime is published, so it may import no devDependency'] as const);
const ALL_CROSSINGS = [...CROSSINGS, ...DEV_ONLY_CROSSINGS];

/** One import each role may make. */
const ALLOWED: readonly Snippet[] = [
  ['aws/streams/x.ts', "export { SQS_LIMITS } from '../limits'; export { SQSClient } from '@aws-sdk/client-sqs';"],
  ['lambdas/runtime/x.ts', "export { SQS_LIMITS } from '../../aws/limits';"],
  ['lambdas/runtime/x.ts', "export { createConsumer } from './consumer/consumer'; export { transactionalStrategy } from './stores/dynamodb/transactional-strategy'; export { publishToSqs } from './producing/producer';"],
  ['lambdas/runtime/stores/dynamodb/x.ts', "export type { Strategy } from '../../consumer/strategy'; export { DlqSender } from '../../failures/dlq'; export { SQS_LIMITS } from '../../../../aws/limits'; export { y } from './y';"],
  ['lambdas/runtime/one-call/x.ts', "export { transactionalStrategy } from '../stores/dynamodb/transactional-strategy'; export { publishToSqs } from '../producing/producer'; export { createConsumer } from '../consumer/consumer';"],
  ['lambdas/runtime/consumer/x.ts', "export { DlqSender } from '../failures/dlq'; export { routes } from '../decoding/routes'; export { eventIdFor } from '../events/event-id'; export { classifyError } from '../core/classify'; export { SQS_LIMITS } from '../../../aws/limits';"],
  ['lambdas/runtime/core/x.ts', "export { SQS_LIMITS } from '../../../aws/limits'; export { classifyError } from './classify';"],
  ['lambdas/runtime/producing/x.ts', "export { eventIdFor } from '../events/event-id'; export { withRetries } from '../core/backoff';"],
  ['lib/x.ts', "export { SQS_LIMITS } from '../aws/limits'; export { Stack } from 'aws-cdk-lib'; export { Construct } from 'constructs';"],
  ['cli/x.ts', "export { SQS_LIMITS } from '../aws/limits';"],
  // operations/cli is the role's own folder, not cli/: the depth of the file decides which one an import reaches.
  ['operations/dlq/x.ts', "export { fullJitterDelay } from '../../lambdas/runtime/core/backoff'; export { renderTable } from '../../cli/table'; export { registerDlqCommands } from '../cli/dlq-commands';"],
  ['example/handlers/x.ts', "export { createConsumer } from '../../lambdas/runtime'; export { QueueConsumer } from '../../lib'; export { Stack } from 'aws-cdk-lib';"],
  ['emulator/stack/x.ts', "export { writeAwsConfig } from '../cli/aws-cli-config'; export { listDlqs } from '../../operations/dlq'; export { createConsumer } from '../../lambdas/runtime';"],
  ['emulator/demo/x.ts', "export { CONSUMER_NAME } from '../../example/handlers/page-view-counter';"],
  ['emulator/engines/x.ts', "export { startFauxqs } from 'fauxqs';"],
  ['tools/bench/x.ts', "export { startEngines } from '../../emulator/engines'; export { EventPipelineStack } from '../../example';"],
  ['bin/x.ts', "export { runDemo } from '../emulator/demo/run'; export { registerNewCommands } from '../tools/cli/new-commands';"],
  ['test/lib/x.ts', "export { lambdaContext } from '../helpers/events'; export { startEngines } from '../../emulator/engines';"],
];

let crossings: string[][];
let allowed: string[][];
beforeAll(async () => {
  const messages = await boundaryMessages([...ALL_CROSSINGS.map(([file, code]) => [file, code] as const), ...ALLOWED]);
  crossings = messages.slice(0, ALL_CROSSINGS.length);
  allowed = messages.slice(ALL_CROSSINGS.length);
}, 120_000);

test.each(ALL_CROSSINGS.map((crossing, index) => [...crossing, index] as const))('%s: %s fails the lint, naming the boundary', (_file, _code, boundary, index) => {
  expect(crossings[index]).toEqual([expect.stringContaining(boundary)]);
});

test.each(ALLOWED.map((snippet, index) => [...snippet, index] as const))('%s: %s passes', (_file, _code, index) => {
  expect(allowed[index]).toEqual([]);
});
