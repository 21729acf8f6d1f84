import { MappingConfigError } from './errors';

/** Bounds of a numeric setting. */
export interface Range {
  readonly min: number;
  readonly max: number;
  /** Also accept -1, Lambda's "no limit". @default false */
  readonly unlimited?: boolean;
}

/**
 * Throws unless `value` is an integer in `range` (or -1 where the range allows "no limit").
 * The message names the setting, the allowed range and the given value.
 *
 * @example
 * checkRange('batchSize', 0, { min: 1, max: 10_000 }); // batchSize must be 1..10000 (given 0)
 */
export function checkRange(setting: string, value: number, range: Range): void {
  if (range.unlimited && value === -1) return;
  if (Number.isInteger(value) && value >= range.min && value <= range.max) return;
  const allowed = `${range.unlimited ? '-1 or ' : ''}${range.min}..${range.max}`;
  throw new MappingConfigError(setting, value, `${setting} must be ${allowed} (given ${value})`);
}
