/**
 * What a driver needs to "drain until quiet": whether anything is in flight, and when something
 * last happened (records seen, a batch finished).
 */
export class Activity {
  private inFlight = 0;
  private last = Date.now();

  /** When records were last seen or a batch last started or finished (epoch ms). */
  get lastActivityAt(): number {
    return this.last;
  }

  /** True when no batch is in flight. */
  get idle(): boolean {
    return this.inFlight === 0;
  }

  /** Notes that something happened now. */
  touch(): void {
    this.last = Date.now();
  }

  /** Runs `work` as one in-flight batch. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    this.touch();
    try {
      return await work();
    } finally {
      this.inFlight -= 1;
      this.touch();
    }
  }
}
