/**
 * A brand that only the module holding it can put on a value: what the runtime made, frozen and
 * remembered, so that an object with the same fields from anywhere else (a producer's JSON, a map
 * attribute of a stream image, a copy) is never taken for it. A module keeps its brand to itself;
 * whoever cannot reach the brand cannot mark a value with it.
 */
export class RuntimeBrand<T extends object> {
  private readonly marked = new WeakSet<object>();

  /** Freezes `value` and marks it as made here. */
  public mark<V extends T>(value: V): V {
    this.marked.add(Object.freeze(value));
    return value;
  }

  /** True only for a value this brand marked. */
  public has(value: unknown): value is T {
    return typeof value === 'object' && value !== null && this.marked.has(value);
  }
}
