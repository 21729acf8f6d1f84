/** Plain-text tables and durations for the CLI's human output. */
import { printable } from './terminal-text';

/**
 * A boxed table; columns as wide as their widest cell. Each cell is made {@link printable} first: a
 * cell may hold text from outside, and a line break or a terminal control in it would break the
 * box, or act on the terminal.
 *
 * @example renderTable(['queue', 'depth'], [['orders-dlq', '3']])
 */
export function renderTable(headers: readonly string[], shown: readonly (readonly string[])[]): string {
  const rows = shown.map((row) => row.map(printable));
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = `+${widths.map((width) => '-'.repeat(width + 2)).join('+')}+`;
  const format = (cells: readonly string[]) => `| ${widths.map((width, column) => (cells[column] ?? '').padEnd(width)).join(' | ')} |`;
  return [line, format(headers), line, ...rows.map(format), line].join('\n');
}

/** `42 s`, `3 m 20 s`, `2 h 5 m`, `1 d 3 h`. */
export function formatDuration(seconds: number): string {
  const units: [number, string][] = [[86_400, 'd'], [3_600, 'h'], [60, 'm'], [1, 's']];
  const index = units.findIndex(([size]) => seconds >= size);
  if (index === -1) return '0 s';
  const [size, unit] = units[index] as [number, string];
  const [nextSize, nextUnit] = units[index + 1] ?? [0, ''];
  const whole = Math.floor(seconds / size);
  const rest = nextSize ? Math.floor((seconds - whole * size) / nextSize) : 0;
  return rest > 0 ? `${whole} ${unit} ${rest} ${nextUnit}` : `${whole} ${unit}`;
}

/** The last part of an ARN or URL: a queue, stream or table name. */
export function shortName(arnOrUrl: string): string {
  return arnOrUrl.split(/[:/]/).filter(Boolean).pop() ?? arnOrUrl;
}

/** An ISO timestamp without milliseconds, for tables. */
export function shortTime(iso: string | undefined): string {
  return iso ? iso.replace(/\.\d{3}Z$/, 'Z') : '-';
}
