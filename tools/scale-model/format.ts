/** How docs/scale.md prints numbers and tables: deterministic, no locale, every figure with its basis. */
import { BASIS, type Basis, type Figure } from './figures';

const TAGS: Record<Basis, string> = { [BASIS.measured]: 'm', [BASIS.derived]: 'd', [BASIS.projected]: 'p' };

/** The legend of the tags {@link tagged} prints. */
export const TAG_LEGEND = '`m` measured (straight from the bench JSON), `d` derived (arithmetic on measured figures and documented limits and prices), `p` projected (rests on an assumption nothing here can check)';

/** A number with thousands separators: whole numbers and anything from 100 up without decimals, else 1, 2 or 3 significant digits. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? 'unlimited' : '-';
  const magnitude = Math.abs(value);
  if (magnitude >= 100 || Number.isInteger(value)) return withSeparators(Math.round(value).toString());
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return Number(value.toPrecision(3)).toString();
}

function withSeparators(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A figure and its basis tag: `21,429 d`. */
export function tagged(figure: Figure, format: (value: number) => string = formatNumber): string {
  return `${format(figure.value)} ${TAGS[figure.basis]}`;
}

/** Dollars: cents from 10 cents up, else four decimals; nothing is `$0`. */
export function dollars(value: number): string {
  if (value === 0) return '$0';
  return `$${value >= 0.1 ? value.toFixed(2) : value.toFixed(4)}`;
}

/** A price per million, as AWS states them: `$0.625`, `$0.20`. */
export function perMillion(value: number): string {
  return `$${(value * 1e6).toFixed(3).replace(/(\.\d\d)0$/, '$1')} per million`;
}

/** A whole number of something, rounded up already by the model. */
export function whole(value: number): string {
  return withSeparators(Math.round(value).toString());
}

/** A markdown table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
