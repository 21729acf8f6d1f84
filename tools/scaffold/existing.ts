/**
 * What the stack already holds: the ids of its top-level constructs (outputs included) and the
 * names of its consumers. Read from the stack itself, built in process from the repository's
 * `lib/` (without bundling), so that anything that adds a construct counts, generated or not.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { DEFAULT_STACK_NAME } from '../../aws/stack-name';

/** Names a new consumer must not reuse. */
export interface ExistingNames {
  readonly constructIds: ReadonlySet<string>;
  readonly consumerNames: ReadonlySet<string>;
}

/** Thrown when the stack cannot be built: then nothing can be checked, so nothing is generated. */
export class StackLoadError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StackLoadError';
  }
}

/** Builds the stack of `root` and lists what is in it. @throws StackLoadError */
export function existingNames(root: string): ExistingNames {
  const stack = loadStack(root);
  const constructIds = new Set(stack.node.children.map((child) => child.node.id));
  const consumerNames = new Set<string>();
  for (const construct of stack.node.findAll()) {
    const name = (construct as IConstruct & { consumerName?: unknown }).consumerName;
    if (typeof name === 'string') consumerNames.add(name);
  }
  return { constructIds, consumerNames };
}

function loadStack(root: string): IConstruct {
  const example = path.join(root, 'example');
  const cwd = process.cwd();
  try {
    // The functions find their lock file, and so their project root, from the working directory.
    process.chdir(root);
    forget(root);
    // Loaded fresh from `root`: the CLI may have been started from another checkout.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { EventPipelineStack } = require(example) as typeof import('../../example');
    const context = (JSON.parse(readFileSync(path.join(root, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
    const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    return new EventPipelineStack(app, DEFAULT_STACK_NAME);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
    throw new StackLoadError(`could not build the stack from ${example} to check the name against it: ${reason}. Fix the stack first (\`npx cdk synth\` shows the same error).`, { cause: error });
  } finally {
    process.chdir(cwd);
  }
}

/** Drops `root`'s own modules from the require cache, so that files written since are seen. */
function forget(root: string): void {
  const prefixes = ['lib', 'lambdas', 'aws', 'example'].map((dir) => path.join(root, dir) + path.sep);
  for (const key of Object.keys(require.cache)) {
    if (prefixes.some((prefix) => key.startsWith(prefix))) delete require.cache[key];
  }
}
