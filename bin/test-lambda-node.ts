#!/usr/bin/env node
/**
 * `npm run test:lambda-node`: the runtime's tests (test/lambdas) under the Node.js major that the
 * constructs deploy the functions on (lib/defaults.ts `CONSUMER_RUNTIME`), whatever Node.js runs
 * the tools: the same binary local mode runs the functions on (emulator/functions/node-runtime.ts,
 * fetched once per machine). `EO_LAMBDA_NODE_RUNTIME=nodejs26.x` names another runtime (a consumer's
 * `runtime` prop, or the default of a newer aws-cdk-lib). Extra arguments go to Jest. Exits with
 * Jest's code.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { nodeBinaryFor } from '../emulator/functions';
import { CONSUMER_RUNTIME } from '../lib/defaults';

async function main(): Promise<number> {
  const runtime = process.env.EO_LAMBDA_NODE_RUNTIME ?? CONSUMER_RUNTIME.name;
  const node = await nodeBinaryFor(runtime, { onDownload: (version) => process.stderr.write(`fetching Node.js ${version} for ${runtime} (once per machine)\n`) });
  process.stdout.write(`running test/lambdas on Node.js ${node.version} (${runtime}, ${node.source}: ${node.path})\n`);
  const jest = require.resolve('jest/bin/jest');
  // Jest's workers and the engines it starts are forked from this binary; `node` on PATH is the same one.
  const env = { ...process.env, PATH: `${path.dirname(node.path)}${path.delimiter}${process.env.PATH ?? ''}` };
  const run = spawnSync(node.path, [jest, 'test/lambdas', ...process.argv.slice(2)], { stdio: 'inherit', env, cwd: path.resolve(__dirname, '..') });
  if (run.error) throw run.error;
  return run.status ?? 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`test:lambda-node: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
