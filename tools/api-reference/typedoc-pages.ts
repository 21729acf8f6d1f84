/**
 * The pages TypeDoc writes from the TSDoc of the package's two entry points, as Markdown
 * (typedoc-plugin-markdown) so that they read on GitHub and in the installed package's docs/.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as ts from 'typescript';
import { docCommentProblemsIn, type CheckedEntry, type DocProblem } from './doc-comments';

/**
 * The entry points, relative to the root: the constructs (`effectively-once`), whose props are held
 * to the props rules, and the runtime (`effectively-once/runtime`).
 */
export const ENTRY_POINTS: readonly CheckedEntry[] = [{ file: 'lib/index.ts', props: true }, { file: 'lambdas/runtime/index.ts' }];

/** TypeDoc's pages, by path relative to its output folder, and what the TSDoc lacks. */
export interface TypedocOutput {
  readonly pages: Map<string, string>;
  readonly problems: readonly DocProblem[];
}

/**
 * Every page TypeDoc writes for the entry points, and the problems of their doc comments, found in
 * the program TypeDoc compiled (./doc-comments.ts). Inherited
 * members from outside the package (a construct's `node`, `toString()`) are left out: aws-cdk-lib's
 * own reference has them. Sources are not linked: line numbers would make every edit a stale page.
 */
export async function typedocPages(root: string): Promise<TypedocOutput> {
  const typedoc = (await import(TYPEDOC)) as TypedocApi;
  const out = mkdtempSync(path.join(tmpdir(), 'eo-api-'));
  try {
    const app = await typedoc.Application.bootstrapWithPlugins({
      entryPoints: ENTRY_POINTS.map((entry) => path.join(root, entry.file)),
      tsconfig: path.join(root, 'tsconfig.json'),
      plugin: ['typedoc-plugin-markdown'],
      out,
      readme: 'none',
      disableSources: true,
      skipErrorChecking: true,
      logLevel: 'Error',
      jsDocCompatibility: { defaultTag: false, exampleTag: true, ignoreUnescapedBraces: false, inheritDocTag: false },
      blockTags: [...typedoc.OptionDefaults.blockTags, '@range'],
      sort: ['source-order'],
      // typedoc-plugin-markdown's options: one page per entry point, no breadcrumbs or page header.
      outputFileStrategy: 'modules',
      hidePageHeader: true,
      hideBreadcrumbs: true,
    });
    let problems: readonly DocProblem[] = [];
    app.converter.on(typedoc.Converter.EVENT_RESOLVE_BEGIN, (context) => {
      const [program] = context.programs;
      if (!program || context.programs.length > 1) throw new Error(`expected TypeDoc to compile the entry points as one program (got ${context.programs.length})`);
      problems = docCommentProblemsIn(program, root, ENTRY_POINTS);
      dropExternalInherited(context.project);
    });
    const project = await app.convert();
    if (!project) throw new Error('TypeDoc could not convert the entry points (run `npx typedoc` for its messages)');
    await app.generateOutputs(project);
    return { pages: readPages(out), problems };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function dropExternalInherited(project: TypedocProject): void {
  for (const reflection of Object.values(project.reflections)) {
    if (reflection.inheritedFrom && reflection.inheritedFrom.reflection === undefined) project.removeReflection(reflection);
  }
}

/**
 * TypeDoc is an ES module whose types resolve only under `moduleResolution` node16 or bundler, not
 * this project's node10: it is imported by a name TypeScript does not resolve, and typed here by
 * the little of its API this file uses.
 */
const TYPEDOC: string = 'typedoc';

interface TypedocApi {
  readonly Application: { bootstrapWithPlugins(options: Readonly<Record<string, unknown>>): Promise<TypedocApplication> };
  readonly Converter: { readonly EVENT_RESOLVE_BEGIN: string };
  readonly OptionDefaults: { readonly blockTags: readonly string[] };
}

interface TypedocApplication {
  readonly converter: { on(event: string, listener: (context: TypedocContext) => void): void };
  convert(): Promise<TypedocProject | undefined>;
  generateOutputs(project: TypedocProject): Promise<void>;
}

interface TypedocContext {
  readonly programs: readonly ts.Program[];
  readonly project: TypedocProject;
}

interface TypedocProject {
  readonly reflections: Readonly<Record<number, TypedocReflection>>;
  removeReflection(reflection: TypedocReflection): void;
}

/** A member; `inheritedFrom` names where it came from, with no `reflection` when that is outside the package. */
interface TypedocReflection {
  readonly inheritedFrom?: { readonly reflection?: unknown };
}

/** Every Markdown file under `folder`, by path relative to it (with `/`). */
export function readPages(folder: string): Map<string, string> {
  const files = readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md'));
  return new Map(files.sort().map((file) => [file.split(path.sep).join('/'), readFileSync(path.join(folder, file), 'utf8')]));
}
