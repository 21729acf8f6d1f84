/**
 * The Lambda runtime a consumer's function runs on. By default the newest Node.js runtime that the
 * installed aws-cdk-lib knows: cdk-nag's AwsSolutions-L1 ("the latest runtime version") compares a
 * function's runtime with the newest of its family in that same `Runtime.ALL`, so a pinned default
 * fails every consumer as soon as the app installs an aws-cdk-lib with a newer runtime. An app
 * that needs another one sets the construct's `runtime`.
 */
import { Runtime, RuntimeFamily } from 'aws-cdk-lib/aws-lambda';

/** The oldest Node.js major the runtime's code runs on (its tests run there: `npm run test:lambda-node`). */
export const OLDEST_CONSUMER_NODE_MAJOR = 20;

const NODE_RUNTIME_NAME = /^nodejs(\d+)\.x$/;

/** The Node.js major of a runtime named `nodejs<major>.x`; undefined for any other. */
export function nodeMajorOfRuntime(runtime: Runtime): number | undefined {
  const match = NODE_RUNTIME_NAME.exec(runtime.name);
  return match === null ? undefined : Number(match[1]);
}

/**
 * The newest `nodejs<major>.x` runtime among `known`.
 * @default known - `Runtime.ALL` of the installed aws-cdk-lib
 * @throws Error when `known` holds none
 */
export function newestNodeRuntime(known: readonly Runtime[] = Runtime.ALL): Runtime {
  let newest: { runtime: Runtime; major: number } | undefined;
  for (const runtime of known) {
    const major = nodeMajorOfRuntime(runtime);
    if (runtime.family === RuntimeFamily.NODEJS && major !== undefined && (newest === undefined || major > newest.major)) newest = { runtime, major };
  }
  if (newest === undefined) throw new Error('aws-cdk-lib knows no nodejs<major>.x runtime: install a newer aws-cdk-lib');
  return newest.runtime;
}

/**
 * Refuses a runtime the consumer's code cannot run on: not Node.js (`nodejs<major>.x`), or older
 * than {@link OLDEST_CONSUMER_NODE_MAJOR}.
 * @throws Error naming the runtime and what is accepted
 */
export function checkConsumerRuntime(runtime: Runtime): void {
  const major = nodeMajorOfRuntime(runtime);
  if (runtime.family !== RuntimeFamily.NODEJS || major === undefined) {
    throw new Error(`runtime must be a Node.js runtime (nodejs<major>.x): the consumer's code is Node.js, got ${runtime.name}`);
  }
  if (major < OLDEST_CONSUMER_NODE_MAJOR) throw new Error(`runtime must be nodejs${OLDEST_CONSUMER_NODE_MAJOR}.x or newer, got ${runtime.name}`);
}

/** esbuild's target for a Node.js runtime (`nodejs24.x`: `node24`), so that a bundle never uses syntax its runtime lacks. */
export function esbuildTargetOf(runtime: Runtime): string {
  const major = nodeMajorOfRuntime(runtime);
  if (major === undefined) throw new Error(`no esbuild target for ${runtime.name}: a Node.js runtime is nodejs<major>.x`);
  return `node${major}`;
}
