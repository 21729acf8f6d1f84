/** Where a generated consumer's files go, relative to the repository root. */
import * as path from 'node:path';

/** The registry of generated consumers, which the generator edits between its markers. */
export const REGISTRY_FILE = 'example/consumers/index.ts';

/** The files one consumer consists of. */
export interface ConsumerFiles {
  /** `example/handlers/<name>.ts`: the Lambda handler. */
  readonly handler: string;
  /** `example/consumers/<name>.ts`: its construct and what only it uses. */
  readonly construct: string;
  /** `test/example/generated/<name>.int.test.ts`: the handler against the local engines. */
  readonly test: string;
}

/** The paths of a consumer's files, relative to the root, with `/` separators. */
export function consumerFiles(name: string): ConsumerFiles {
  return {
    handler: `example/handlers/${name}.ts`,
    construct: `example/consumers/${name}.ts`,
    test: `test/example/generated/${name}.int.test.ts`,
  };
}

/** A path relative to the root, made absolute. */
export function absolute(root: string, relative: string): string {
  return path.join(root, ...relative.split('/'));
}
