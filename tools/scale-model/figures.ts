/**
 * A number of the scale model together with how much to trust it. Arithmetic carries the weakest
 * basis of its inputs along, so that a figure built on an assumed latency stays `projected`
 * however many steps later it is printed.
 */

/** Where a figure comes from, strongest first. */
export const BASIS = {
  /** Straight from the bench JSON. */
  measured: 'measured',
  /** Arithmetic on measured figures and AWS's documented limits and prices. */
  derived: 'derived',
  /** Depends on something this machine cannot measure (AWS's latency, Lambda's CPU). */
  projected: 'projected',
} as const;

export type Basis = (typeof BASIS)[keyof typeof BASIS];

export interface Figure {
  readonly value: number;
  readonly basis: Basis;
}

/** A figure read from the bench JSON. */
export function measured(value: number): Figure {
  return { value, basis: BASIS.measured };
}

/** A documented limit or price, or a count taken from this repository's code. */
export function documented(value: number): Figure {
  return { value, basis: BASIS.derived };
}

/** A figure that rests on an assumption nothing here can check. */
export function assumed(value: number): Figure {
  return { value, basis: BASIS.projected };
}

/** The result of arithmetic on `inputs`: projected when any input is, derived otherwise. */
export function derive(value: number, ...inputs: readonly Figure[]): Figure {
  return { value, basis: inputs.some((input) => input.basis === BASIS.projected) ? BASIS.projected : BASIS.derived };
}

/** `a * b` (and any further factors). */
export function times(...factors: readonly Figure[]): Figure {
  return derive(factors.reduce((product, factor) => product * factor.value, 1), ...factors);
}

/** `a / b`. */
export function over(numerator: Figure, denominator: Figure): Figure {
  return derive(numerator.value / denominator.value, numerator, denominator);
}

/** `a + b + ...`. */
export function plus(...terms: readonly Figure[]): Figure {
  return derive(terms.reduce((sum, term) => sum + term.value, 0), ...terms);
}

/** The smallest whole number at least `figure`. */
export function ceil(figure: Figure): Figure {
  return derive(Math.ceil(figure.value - 1e-9), figure);
}
