/**
 * What `eo compare` prints: each table of the two generations, its counts, the first differences,
 * and whether the generations hold the same. Keys and values come from the tables, written by the
 * consumer's code from what producers sent, so every line is {@link printable}.
 */
import { printable } from '../../cli/terminal-text';
import type { DiffAttribute, DiffExample, TableDiff, TableSide } from '../replay/table-diff';

/**
 * The comparison of a consumer's live generation with a rebuilt one, one table variable after
 * another, as human text.
 *
 * @example
 * ```ts
 * formatComparison('order-projection', 1, 2, [await diffTables(dynamodb, { variable: 'ORDERS_TABLE', live: 'orders-1', next: 'orders-2' })]);
 * // compare order-projection: generation 1 (live) against generation 2
 * //   ORDERS_TABLE: orders-1 (120 items) against orders-2 (120 items): 120 equal
 * //   result: the same
 * ```
 */
export function formatComparison(consumer: string, liveGeneration: number, nextGeneration: number, diffs: readonly TableDiff[]): string {
  const names = { live: `generation ${liveGeneration}`, next: `generation ${nextGeneration}` };
  const lines = [`compare ${consumer}: ${names.live} (live) against ${names.next}`, ...diffs.flatMap((diff) => tableLines(diff, names)), `  result: ${verdict(diffs)}`];
  return lines.map(printable).join('\n');
}

/** How the two generations are named in the text. */
interface GenerationNames {
  readonly live: string;
  readonly next: string;
}

function tableLines(diff: TableDiff, names: GenerationNames): string[] {
  const head = `  ${diff.variable}: ${sideText(diff.live)} against ${sideText(diff.next)}: ${countsText(diff, names)}`;
  const unlisted = differenceCount(diff) - diff.examples.length;
  const more = unlisted > 0 ? [`    ... and ${unlisted} more difference(s)`] : [];
  return [head, ...diff.examples.flatMap((example) => exampleLines(example, names)), ...more];
}

function sideText(side: TableSide): string {
  const folded = side.shardItems > 0 ? `, ${side.shardItems} of them counter shards` : '';
  return `${side.table} (${side.items} items${folded})`;
}

function countsText(diff: TableDiff, names: GenerationNames): string {
  const counts = [
    [diff.equal, 'equal'],
    [diff.differing, 'differing'],
    [diff.onlyLive, `only in ${names.live}`],
    [diff.onlyNext, `only in ${names.next}`],
  ] as const;
  const shown = counts.filter(([count], index) => count > 0 || index === 0);
  return shown.map(([count, label]) => `${count} ${label}`).join(', ');
}

function exampleLines(example: DiffExample, names: GenerationNames): string[] {
  if (example.kind === 'only-live') return [`    only in ${names.live}: ${example.key}`];
  if (example.kind === 'only-next') return [`    only in ${names.next}: ${example.key}`];
  const attributes = (example.attributes ?? []).map((attribute) => attributeText(attribute, names));
  if (attributes.length === 1) return [`    differs ${example.key}: ${attributes[0]}`];
  return [`    differs ${example.key}:`, ...attributes.map((text) => `      ${text}`)];
}

/** `status "PAID" (generation 1), "SHIPPED" (generation 2)`. */
function attributeText(attribute: DiffAttribute, names: GenerationNames): string {
  return `${attribute.name} ${attribute.live ?? 'absent'} (${names.live}), ${attribute.next ?? 'absent'} (${names.next})`;
}

function differenceCount(diff: TableDiff): number {
  return diff.onlyLive + diff.onlyNext + diff.differing;
}

function verdict(diffs: readonly TableDiff[]): string {
  const differing = diffs.filter((diff) => !diff.same);
  if (differing.length === 0) return 'the same';
  // `3 difference(s) in ORDERS_TABLE, 1 in COUNTERS_TABLE`
  return differing.map((diff, index) => `${differenceCount(diff)}${index === 0 ? ' difference(s)' : ''} in ${diff.variable}`).join(', ');
}
