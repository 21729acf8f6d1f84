/** Small helpers the templates share. */

/** Replaces `{{key}}` with its value; throws on a placeholder that has none, so no template ships one. */
export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template placeholder ${match} has no value`);
    return value;
  });
}

/** Import names sorted as the handlers sort them: values, then `type` names, each case-insensitively. */
export function sortImports(names: Iterable<string>): string[] {
  const unique = [...new Set(names)];
  const key = (name: string): string => name.replace(/^type /, '').toLowerCase();
  const byKey = (a: string, b: string): number => key(a).localeCompare(key(b));
  return [...unique.filter((name) => !name.startsWith('type ')).sort(byKey), ...unique.filter((name) => name.startsWith('type ')).sort(byKey)];
}

/** Indents every non-empty line. */
export function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** Wraps prose into lines of at most `width` characters, each starting with `prefix`. */
export function wrap(text: string, width: number, prefix: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && prefix.length + line.length + 1 + word.length > width) {
      lines.push(prefix + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(prefix + line);
  return lines.join('\n');
}

/** An import: module and name (`type X` for a type). */
export type ImportSpec = readonly [module: string, name: string];

/** One `import` line; `import type` when every name is a type. */
export function importLine(module: string, names: readonly string[]): string {
  const sorted = sortImports(names);
  if (sorted.every((name) => name.startsWith('type '))) {
    return `import type { ${sorted.map((name) => name.slice('type '.length)).join(', ')} } from '${module}';`;
  }
  return `import { ${sorted.join(', ')} } from '${module}';`;
}

/** `import` lines: packages first, then our modules from the furthest to the nearest. */
export function importLines(imports: readonly ImportSpec[]): string {
  const byModule = new Map<string, string[]>();
  for (const [module, name] of imports) byModule.set(module, [...(byModule.get(module) ?? []), name]);
  const order = (module: string): string => (module.startsWith('.') ? `1${module}` : `0${module}`);
  return [...byModule.keys()]
    .sort((a, b) => order(a).localeCompare(order(b)))
    .map((module) => importLine(module, byModule.get(module) ?? []))
    .join('\n');
}
