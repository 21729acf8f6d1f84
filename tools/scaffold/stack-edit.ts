/**
 * Adds a generated consumer to a team's stack file: an import after the last import, and one
 * `new <Construct>(this, ...)` statement. It goes before a `// eo:consumers` line when the file
 * has one (the team chose the place), else at the end of the constructor of the one class that
 * extends a Stack, found with the app's own TypeScript parser. When there is no such place (no
 * TypeScript in the app, a file that does not parse, two stacks, a constructor closed mid-line),
 * nothing is edited and the report prints the lines to add by hand, with the reason.
 *
 * The stack's AlarmTopic and IdempotencyTable are passed to the consumer when the constructor
 * declares them as `const x = new AlarmTopic(this, ...)` (the table only to a consumer that keeps
 * records there); otherwise the consumer makes its own. A SQL consumer takes the stack's
 * `SqlEffectDatabase`, which it cannot make (one per stack, shared by its SQL consumers): when
 * the stack declares none, nothing is edited, and the lines to add create one.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as TypeScript from 'typescript';

/** The line a team puts in its stack's constructor to say where consumers go. */
export const STACK_MARKER = '// eo:consumers';

/** What to add: the construct's class and id, and the module to import it from. */
export interface StackAddition {
  readonly className: string;
  readonly id: string;
  readonly module: string;
  readonly comment: string;
  /** Whether the construct takes the stack's idempotency table (a versioned upsert keeps no records). @default true */
  readonly idempotencyTable?: boolean;
  /** Whether the construct takes the stack's `SqlEffectDatabase` (a SQL consumer). @default false */
  readonly sqlDatabase?: boolean;
}

export type StackEdit =
  | { readonly ok: true; readonly content: string; readonly where: string }
  | { readonly ok: false; readonly reason: string; readonly lines: readonly string[] };

type Ts = typeof TypeScript;

/** The app's `typescript`, or undefined when it has none. */
export function appTypeScript(root: string): Ts | undefined {
  try {
    return createRequire(path.join(root, 'package.json'))('typescript') as Ts;
  } catch {
    return undefined;
  }
}

/** The stack file with the consumer added, or the lines to add by hand. */
export function addToStack(source: string, addition: StackAddition, ts: Ts | undefined): StackEdit {
  if (addition.sqlDatabase === true && sharedIn(source).database === undefined) {
    return byHand(addition, sharedIn(source), `the stack has no \`SqlEffectDatabase\` (declared as \`const x = new SqlEffectDatabase(this, ...)\`): create one, shared by the stack's SQL consumers, with the lines below`);
  }
  const markers = source.split('\n').filter((line) => line.trim() === STACK_MARKER).length;
  if (markers > 1) return byHand(addition, sharedIn(source), `the file has ${markers} \`${STACK_MARKER}\` lines; keep one`);
  if (markers === 1) return atMarker(source, addition);
  if (ts === undefined) return byHand(addition, sharedIn(source), `the app has no \`typescript\` to find its stack's constructor, and the file no \`${STACK_MARKER}\` line`);
  return atConstructorEnd(source, addition, ts);
}

/** The variable of the `SqlEffectDatabase` the lines to add by hand create. */
const NEW_DATABASE = 'sqlDatabase';

/** The statement, with the stack's shared resources passed when it declares them. */
function statementLines(addition: StackAddition, shared: Shared): string[] {
  const idempotency = addition.idempotencyTable !== false && shared.idempotency;
  const database = addition.sqlDatabase === true && (shared.database ?? NEW_DATABASE);
  const props = [shared.alarmTopic && `alarmTopic: ${shared.alarmTopic}.topic`, idempotency && `idempotencyTable: ${shared.idempotency}`, database && `database: ${database}`].filter(Boolean);
  const args = props.length > 0 ? `, { ${props.join(', ')} }` : '';
  return [...newDatabaseLines(addition, shared), `// ${addition.comment}`, `new ${addition.className}(this, '${addition.id}'${args});`];
}

/** For a SQL consumer in a stack without a database: the one database of the stack's SQL consumers. */
function newDatabaseLines(addition: StackAddition, shared: Shared): string[] {
  if (addition.sqlDatabase !== true || shared.database !== undefined) return [];
  const alarmTopic = shared.alarmTopic ? `${shared.alarmTopic}.topic` : "new AlarmTopic(this, 'SqlEffectsAlarms').topic";
  return [
    '// The SQL database of the stack\'s SQL consumers (one per stack): an Aurora PostgreSQL cluster behind the Data API.',
    `const ${NEW_DATABASE} = new SqlEffectDatabase(this, 'SqlEffects', { alarmTopic: ${alarmTopic} });`,
  ];
}

function importLine(addition: StackAddition): string {
  return `import { ${addition.className} } from '${addition.module}';`;
}

function byHand(addition: StackAddition, shared: Shared, reason: string): StackEdit {
  const packageImport = addition.sqlDatabase === true && shared.database === undefined ? [`import { ${shared.alarmTopic ? '' : 'AlarmTopic, '}SqlEffectDatabase } from 'effectively-once';`] : [];
  return { ok: false, reason, lines: [...packageImport, importLine(addition), ...statementLines(addition, shared)] };
}

interface Shared {
  readonly alarmTopic?: string;
  readonly idempotency?: string;
  readonly database?: string;
}

/** `const x = new AlarmTopic(this, ...)`, `new IdempotencyTable(this, ...)` and `new SqlEffectDatabase(this, ...)` in `text`, each when declared once. */
function sharedIn(text: string): Shared {
  const one = (className: string): string | undefined => {
    const found = [...text.matchAll(new RegExp(`\\b(?:const|let)\\s+(\\w+)\\s*=\\s*new\\s+${className}\\s*\\(\\s*this\\b`, 'g'))];
    return found.length === 1 ? found[0]?.[1] : undefined;
  };
  return { alarmTopic: one('AlarmTopic'), idempotency: one('IdempotencyTable'), database: one('SqlEffectDatabase') };
}

function atMarker(source: string, addition: StackAddition): StackEdit {
  const lines = source.split('\n');
  const at = lines.findIndex((line) => line.trim() === STACK_MARKER);
  const indent = /^\s*/.exec(lines[at] ?? '')?.[0] ?? '';
  const statement = statementLines(addition, sharedIn(lines.slice(0, at).join('\n'))).map((line) => indent + line);
  return { ok: true, content: withImport([...lines.slice(0, at), ...statement, ...lines.slice(at)], addition), where: `before its \`${STACK_MARKER}\` line` };
}

function atConstructorEnd(source: string, addition: StackAddition, ts: Ts): StackEdit {
  const file = ts.createSourceFile('stack.ts', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  if ((file as unknown as { parseDiagnostics: readonly unknown[] }).parseDiagnostics.length > 0) return byHand(addition, sharedIn(source), 'the file does not parse');
  const stacks = file.statements.filter(ts.isClassDeclaration).filter((node) => extendsStack(node, ts));
  if (stacks.length !== 1) return byHand(addition, sharedIn(source), `${stacks.length === 0 ? 'no class' : 'more than one class'} of the file extends a Stack`);
  const body = stacks[0]?.members.find(ts.isConstructorDeclaration)?.body;
  if (body === undefined) return byHand(addition, sharedIn(source), `the stack class has no constructor; add one, or a \`${STACK_MARKER}\` line`);
  const shared = sharedIn(body.statements.filter(ts.isVariableStatement).map((statement) => statement.getText(file)).join('\n'));
  const closing = file.getLineAndCharacterOfPosition(body.end - 1);
  const lines = source.split('\n');
  const closingLine = lines[closing.line] ?? '';
  if (closingLine.slice(0, closing.character).trim() !== '') return byHand(addition, shared, 'the constructor\'s closing brace shares its line with code');
  const first = body.statements[0];
  const indent = first ? ' '.repeat(file.getLineAndCharacterOfPosition(first.getStart(file)).character) : `${closingLine.slice(0, closing.character)}  `;
  const statement = statementLines(addition, shared).map((line) => indent + line);
  return { ok: true, content: withImport([...lines.slice(0, closing.line), ...statement, ...lines.slice(closing.line)], addition), where: 'at the end of its constructor' };
}

function extendsStack(node: TypeScript.ClassDeclaration, ts: Ts): boolean {
  const clause = node.heritageClauses?.find((heritage) => heritage.token === ts.SyntaxKind.ExtendsKeyword);
  return clause?.types.some((type) => /(^|\.)Stack$/.test(type.expression.getText())) ?? false;
}

/** The import after the last line that ends an import; at the top when there is none. */
function withImport(lines: readonly string[], addition: StackAddition): string {
  const endsImport = (line: string): boolean => /^import\s+['"][^'"]+['"];?\s*$/.test(line) || (/^(import\b|\})/.test(line) && /\bfrom\s+['"][^'"]+['"];?\s*$/.test(line));
  let last = -1;
  lines.forEach((line, index) => {
    if (endsImport(line)) last = index;
  });
  return [...lines.slice(0, last + 1), importLine(addition), ...lines.slice(last + 1)].join('\n');
}
