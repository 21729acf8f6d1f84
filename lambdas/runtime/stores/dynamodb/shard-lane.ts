/**
 * Which shard of each sharded counter a consumer's transactions write. Shards chosen at random per
 * transaction still collide: with 16 consumers committing at once, a transaction's shard is held
 * by another's often enough to cancel it with `TransactionConflict` (measured while this was
 * designed, in the bench's hot-item scenario: about 60 to 70 conflicts per 1,000 events with 16
 * consumers on 16 shards). A lane is kept instead: an execution environment
 * writes the same shard for as long as it commits without a conflict, and moves to a shard drawn at
 * random when it is the one cancelled. The environments that run at once then settle on shards of
 * their own after a few conflicts, and stay there: conflicts stop rather than recur.
 *
 * The shard never affects exactness (the dedup record in the same transaction decides whether an
 * event applies), only who contends with whom.
 *
 * A lane belongs to one run of commits at a time, not to the process: on Lambda Managed Instances
 * several invocations commit at once in one process, and with one lane between them they would
 * write the same shard and conflict with each other ({@link ShardLanes}).
 */
import type { RandomSource } from '../../core/backoff';

/** Lanes are drawn from this many values; a counter of N shards writes shard `lane mod N`. */
const LANES = 2 ** 30;

export class ShardLane {
  private lane: number;

  public constructor(private readonly random: RandomSource = Math.random) {
    this.lane = this.draw();
  }

  /**
   * The shard of a counter of `shards` shards for a transaction at `position` among those that
   * commit at once (a wave of batch commit), so that they write different shards.
   */
  public shardOf(shards: number, position = 0): number {
    return (this.lane + position) % shards;
  }

  /** After a `TransactionConflict`: moves to another lane, at random. */
  public leave(): void {
    const previous = this.lane;
    do this.lane = this.draw();
    while (this.lane === previous);
  }

  private draw(): number {
    return Math.floor(this.random() * LANES);
  }
}

/**
 * The lanes of one committer: a run of commits takes one for as long as it commits and gives it
 * back; runs that commit at once (invocations side by side in one process, FIFO groups) hold
 * different lanes, and a run after them takes the last one given back, so that one invocation at a
 * time keeps its lane from one invocation to the next, as an execution environment does.
 */
export class ShardLanes {
  private readonly free: ShardLane[] = [];

  public constructor(private readonly random: RandomSource = Math.random) {}

  /** Runs `commits` on a lane no other run holds meanwhile. */
  public async withLane<T>(commits: (lane: ShardLane) => Promise<T>): Promise<T> {
    const lane = this.free.pop() ?? new ShardLane(this.random);
    try {
      return await commits(lane);
    } finally {
      this.free.push(lane);
    }
  }
}
