/**
 * Which entries of a publish go in the next request, when entries that share an order key (an SQS
 * FIFO message group, a Kinesis partition key, an SNS FIFO message group) must arrive in publish
 * order.
 *
 * A batch request answers per entry: SQS's `SendMessageBatch` reports each entry in `Successful`
 * or `Failed`, and Kinesis's `PutRecords` goes on with the records after one that fails
 * (`ProvisionedThroughputExceededException`, `InternalFailure`), so a later entry can be accepted
 * while an earlier one of its key is not (SQS API Reference, SendMessageBatch; Kinesis API
 * Reference, PutRecords: https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html).
 * Resent, the earlier one lands after it, and nothing repairs that afterwards: a FIFO queue drops
 * a resend of the later one as a duplicate for 5 minutes, and a stream's consumers have read the
 * later one first. So a request never holds two entries of one key: it is the longest run of the
 * entries not yet accepted, in publish order, with no key twice. An entry refused stays first in
 * line, and a later entry of its key goes out only once it was accepted. Entries without a key
 * keep no order of their own.
 *
 * When nothing is refused, the entries go out in publish order, whatever their keys, and entries
 * of distinct keys fill requests as they come (with the default key, the event id, every entry
 * has its own). Entries are named by their position in the publish.
 */

/** The entries of a publish not yet accepted, in publish order. */
export class PendingEntries {
  /** Positions from `head` on are pending; those before it were accepted (or are stale). */
  private readonly queue: number[];
  private head = 0;

  /** @param orderKeys - each entry's order key, by position; `undefined` for an entry that keeps no order */
  public constructor(private readonly orderKeys: readonly (string | undefined)[]) {
    this.queue = orderKeys.map((_, position) => position);
  }

  /** Whether every entry was accepted. */
  public get isEmpty(): boolean {
    return this.head >= this.queue.length;
  }

  /** The next request: the longest run of pending entries, at most `limit`, that holds no order key twice. */
  public next(limit: number): number[] {
    const request: number[] = [];
    const keys = new Set<string>();
    for (let index = this.head; index < this.queue.length && request.length < limit; index += 1) {
      const position = this.queue[index] as number;
      const key = this.orderKeys[position];
      if (key !== undefined && keys.has(key)) break;
      if (key !== undefined) keys.add(key);
      request.push(position);
    }
    return request;
  }

  /**
   * Records the outcome of the request {@link next} returned: its `refused` entries (in request
   * order) stay first in line; the others were accepted.
   */
  public settle(request: readonly number[], refused: readonly number[]): void {
    if (request.some((position, offset) => this.queue[this.head + offset] !== position)) throw new RangeError(`[${request.join(', ')}] is not the request next() returned`);
    this.head += request.length - refused.length;
    refused.forEach((position, offset) => {
      this.queue[this.head + offset] = position;
    });
  }

  /** Every entry not yet accepted, in publish order. */
  public remaining(): number[] {
    return this.queue.slice(this.head);
  }
}
