/**
 * What the API reference needs from the TSDoc, checked on the sources: every name an entry point
 * exports has a doc comment, and every property of an exported interface of a construct library
 * (the props, and the option objects inside them) says what it is, its `@default` when it is
 * optional, and its `@range` when it is a number or a `Duration`. TypeDoc renders what is there; it
 * would not refuse what is missing.
 */
import * as path from 'node:path';
import * as ts from 'typescript';

/** One entry point to check; `props` holds its exported interfaces to the props rules. */
export interface CheckedEntry {
  /** The entry's file, relative to the root. */
  readonly file: string;
  readonly props?: boolean;
}

/** One missing piece of documentation, e.g. `lib/index.ts: QueueConsumerProps.batchSize has no @range`. */
export interface DocProblem {
  readonly entry: string;
  readonly name: string;
  readonly problem: string;
}

/** The problems of every entry, in the order of its exports, compiled with the root's tsconfig.json. */
export function docCommentProblems(root: string, entries: readonly CheckedEntry[]): DocProblem[] {
  return docCommentProblemsIn(ts.createProgram(entries.map((entry) => path.join(root, entry.file)), compilerOptions(root)), root, entries);
}

/** The same, in a program that holds the entries already (TypeDoc's, so that the reference compiles them once). */
export function docCommentProblemsIn(program: ts.Program, root: string, entries: readonly CheckedEntry[]): DocProblem[] {
  const checker = program.getTypeChecker();
  return entries.flatMap((entry) => {
    const source = program.getSourceFile(path.join(root, entry.file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry.file} is not a module`);
    return checker.getExportsOfModule(module).flatMap((exported) => exportProblems(checker, entry, exported));
  });
}

function exportProblems(checker: ts.TypeChecker, entry: CheckedEntry, exported: ts.Symbol): DocProblem[] {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const problem = (name: string, text: string): DocProblem => ({ entry: entry.file, name, problem: text });
  const own = hasSummary(checker, symbol) ? [] : [problem(exported.name, 'has no doc comment')];
  if (!entry.props || !(symbol.flags & ts.SymbolFlags.Interface)) return own;
  const properties = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).filter(declaredInPackage);
  return [...own, ...properties.flatMap((property) => propertyProblems(checker, property).map((text) => problem(`${exported.name}.${property.name}`, text)))];
}

/** A property's missing pieces: its summary, `@default` when optional, `@range` when numeric. */
export function propertyProblems(checker: ts.TypeChecker, property: ts.Symbol): string[] {
  const tags = new Set(property.getJsDocTags(checker).map((tag) => tag.name));
  const problems: string[] = [];
  if (!hasSummary(checker, property)) problems.push('has no doc comment');
  if (property.flags & ts.SymbolFlags.Optional && !tags.has('default')) problems.push('is optional and has no @default');
  if (isMeasure(checker, property) && !tags.has('range')) problems.push('is a number or a Duration and has no @range');
  return problems;
}

function hasSummary(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim() !== '';
}

/** A number, or aws-cdk-lib's `Duration`, once `undefined` is taken out. */
function isMeasure(checker: ts.TypeChecker, property: ts.Symbol): boolean {
  const type = checker.getNonNullableType(checker.getTypeOfSymbol(property));
  return (type.flags & ts.TypeFlags.NumberLike) !== 0 || type.getSymbol()?.name === 'Duration';
}

/** Properties that the package declares (not those an interface takes from aws-cdk-lib). */
function declaredInPackage(property: ts.Symbol): boolean {
  return (property.declarations ?? []).some((declaration) => !declaration.getSourceFile().fileName.includes('/node_modules/'));
}

function compilerOptions(root: string): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, root).options, noEmit: true };
}
