/**
 * A bound on how many units of work (direct handlers) are in flight at once. Waiters are served
 * first come, first served, so that units start in the order they asked: an unordered batch starts
 * its events in batch order, and order groups that share the slots take turns rather than one
 * starving the others.
 */
export class Slots {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  /** @throws RangeError when `limit` is not a positive integer */
  public constructor(public readonly limit: number) {
    checkConcurrency(limit);
  }

  /** Runs `unit` once a slot is free, and frees the slot when it settles, whether it resolved or threw. */
  public async run<T>(unit: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await unit();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.limit) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot to the first waiter, if any, without freeing it in between. */
  private release(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.inFlight -= 1;
    else next();
  }
}

/** @throws RangeError naming the value, for a concurrency that is not a positive integer */
export function checkConcurrency(concurrency: number): void {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer (given ${String(concurrency)})`);
}

/** One {@link Slots} per invocation (a strategy run's `invocation`), and one for runs that name none. */
export class InvocationSlots {
  private readonly byInvocation = new WeakMap<object, Slots>();
  private readonly shared: Slots;

  /** @throws RangeError when `limit` is not a positive integer */
  public constructor(private readonly limit: number) {
    this.shared = new Slots(limit);
  }

  /** The slots of `invocation`'s runs. */
  public of(invocation: object | undefined): Slots {
    if (invocation === undefined) return this.shared;
    let slots = this.byInvocation.get(invocation);
    if (slots === undefined) {
      slots = new Slots(this.limit);
      this.byInvocation.set(invocation, slots);
    }
    return slots;
  }
}
