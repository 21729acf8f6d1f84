/** The character that joins a consumer's name and its generation in a dedup namespace; no consumer name has it. */
export const GENERATION_SEPARATOR = '@g';

/**
 * The prefix of a consumer's dedup keys at a generation: its name at generation 1 (so the records
 * of a consumer that never had another generation keep their keys), `<consumer>@g<n>` after. A
 * consumer name cannot hold `@`, so no consumer's namespace is another's generation.
 * @throws RangeError when the generation is not a whole number from 1
 */
export function dedupNamespace(consumer: string, generation: number = 1): string {
  if (!Number.isInteger(generation) || generation < 1) throw new RangeError(`a consumer's generation is a whole number from 1 (given ${generation})`);
  return generation === 1 ? consumer : `${consumer}${GENERATION_SEPARATOR}${generation}`;
}

/**
 * A dedup record's key: `<namespace>#<eventId>`, the namespace being the consumer's name at
 * generation 1 ({@link dedupNamespace}). Every store keys its dedup records so.
 */
export function dedupKey(namespace: string, eventId: string): string {
  return `${namespace}#${eventId}`;
}
