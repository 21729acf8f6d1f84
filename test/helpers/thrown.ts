/**
 * What a call threw, for tests that check an error's class and fields rather than only its
 * message (`expect(() => ...).toThrow` checks one or the other, never both on one throw).
 */

/** The value `action` threw; the test fails when it returns instead. */
export function thrownBy(action: () => unknown): unknown {
  const outcome = outcomeOf(action);
  if ('thrown' in outcome) return outcome.thrown;
  throw new Error('expected a throw');
}

/** What `action` returned, or what it threw. */
export function outcomeOf<T>(action: () => T): { readonly returned: T } | { readonly thrown: unknown } {
  try {
    return { returned: action() };
  } catch (error) {
    return { thrown: error };
  }
}
