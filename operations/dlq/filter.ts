/**
 * Which DLQ messages an operation selects: `errorType=SchemaViolationError`, `consumer=page-view-counter`,
 * `kind=pointer`, `eventType=page.viewed`. Values of one key are alternatives; keys must all match.
 */
import type { DlqEntry } from './entry';
import { InvalidOptionError } from './errors';

export const FILTER_KEYS = ['errorType', 'consumer', 'kind', 'eventType'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

/** Accepted values by key; an absent key accepts everything. */
export type EntryFilter = Readonly<Partial<Record<FilterKey, readonly string[]>>>;

/**
 * Parses `key=value` terms.
 *
 * @example parseFilter(['errorType=SchemaViolationError', 'consumer=page-view-counter'])
 * @throws InvalidOptionError naming the accepted keys
 */
export function parseFilter(terms: readonly string[]): EntryFilter {
  const filter: Partial<Record<FilterKey, string[]>> = {};
  for (const term of terms) {
    const [key, value] = splitTerm(term);
    (filter[key] ??= []).push(value);
  }
  return filter;
}

function splitTerm(term: string): [FilterKey, string] {
  const at = term.indexOf('=');
  const key = term.slice(0, Math.max(0, at)).trim();
  const value = term.slice(at + 1).trim();
  if (at < 1 || value === '' || !(FILTER_KEYS as readonly string[]).includes(key)) {
    throw new InvalidOptionError(`--filter takes key=value with key one of ${FILTER_KEYS.join(', ')} (given "${term}")`);
  }
  return [key as FilterKey, value];
}

/** True when the entry passes every key of the filter. */
export function matches(entry: DlqEntry, filter: EntryFilter): boolean {
  const values: Record<FilterKey, string | undefined> = {
    errorType: entry.errorType,
    consumer: entry.consumer,
    kind: entry.kind,
    eventType: entry.kind === 'wrapper' ? entry.failure.eventType : undefined,
  };
  return FILTER_KEYS.every((key) => {
    const accepted = filter[key];
    return accepted === undefined || accepted.length === 0 || (values[key] !== undefined && accepted.includes(values[key]));
  });
}

/** `errorType=A,B consumer=C`, for reports. */
export function describeFilter(filter: EntryFilter): string {
  return FILTER_KEYS.filter((key) => filter[key]?.length).map((key) => `${key}=${filter[key]?.join(',')}`).join(' ');
}
