/**
 * `eo new` and `eo docs` change this repository: they write its example app, its consumer
 * registry and docs/architecture.md, and build its example stack from the TypeScript; `eo demo`
 * runs that example stack. They run only from the TypeScript of a checkout (`npm run eo -- ...`),
 * never from the installed package or a build in dist/, which hold no example app.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The package whose checkout the tools change. */
const PACKAGE_NAME = 'effectively-once';

/** A file only a checkout has: the example stack's TypeScript. */
const CHECKOUT_MARKER = path.join('example', 'event-pipeline-stack.ts');

/** Thrown when a developer tool runs outside a checkout of the repository. */
export class NotACheckoutError extends Error {
  /** @param built whether the CLI runs from a build in dist/ of a checkout, rather than from an installed package */
  public constructor(
    message: string,
    public readonly built: boolean = false,
  ) {
    super(message);
    this.name = 'NotACheckoutError';
  }
}

/** Why a command needs a checkout, and what to do instead in an installed package. */
export interface CheckoutNeed {
  /** What the command does to or with the checkout. @default "changes a checkout of the effectively-once repository (its example app and docs)" */
  readonly needs?: string;
  /** The advice for an installed package. @default - add a consumer by hand, per docs/quick-start.md */
  readonly instead?: string;
}

const CHANGES_CHECKOUT: Required<CheckoutNeed> = {
  needs: `changes a checkout of the ${PACKAGE_NAME} repository (its example app and docs)`,
  instead: 'In your own CDK app, add a consumer construct and its handler by hand: see "Use it in your own CDK app" in docs/quick-start.md of the repository.',
};

/**
 * The checkout this CLI runs from: two levels above tools/cli, when that folder is the
 * repository's source.
 *
 * @param command the command that needs it, for the message, e.g. `eo new consumer`
 * @throws NotACheckoutError saying where the CLI runs from and what to do instead
 */
export function repositoryCheckout(command: string, need: CheckoutNeed = {}, root: string = path.resolve(__dirname, '..', '..')): string {
  if (isCheckout(root)) return root;
  const { needs, instead } = { ...CHANGES_CHECKOUT, ...need };
  const built = path.basename(root) === 'dist' && isCheckout(path.dirname(root));
  throw new NotACheckoutError(
    built
      ? `\`${command}\` runs from this repository's TypeScript, and this is its build (${root}): run it from the source, \`npm run eo -- ${command.replace(/^eo /, '')} ...\``
      : `\`${command}\` ${needs}, and ${root} is the installed package. ${instead}`,
    built,
  );
}

/** A folder with the package's manifest and the example app's TypeScript. */
function isCheckout(root: string): boolean {
  const manifest = path.join(root, 'package.json');
  if (!existsSync(manifest) || !existsSync(path.join(root, CHECKOUT_MARKER))) return false;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
}
