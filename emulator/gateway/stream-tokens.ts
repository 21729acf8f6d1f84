/**
 * Shard iterators and continuation tokens are opaque: a `GetRecords` names only an iterator, and
 * IAM decides it on the stream the iterator belongs to. The gateway remembers which stream each
 * token it handed out belongs to, from the answers of GetShardIterator, GetRecords and ListShards.
 */
import type { RequestTarget } from '../contract';

type Json = Readonly<Record<string, unknown>>;

/** Tokens kept at most: a long run hands out an iterator per read; the oldest are forgotten first. */
const MAX_TOKENS = 50_000;

export class StreamTokens {
  private readonly streams = new Map<string, string>();

  /** The stream a token was handed out for. */
  public streamOf(token: string): string | undefined {
    return this.streams.get(token);
  }

  /** Learns the tokens in an answer to a request on `streamArn`. */
  public learn(target: RequestTarget, streamArn: string | undefined, answer: Json): void {
    if (streamArn === undefined || (target.service !== 'kinesis' && target.service !== 'dynamodb-streams')) return;
    for (const key of ['ShardIterator', 'NextShardIterator', 'NextToken']) {
      const token = answer[key];
      if (typeof token === 'string') this.remember(token, streamArn);
    }
  }

  private remember(token: string, streamArn: string): void {
    this.streams.set(token, streamArn);
    if (this.streams.size <= MAX_TOKENS) return;
    const oldest = this.streams.keys().next().value;
    if (oldest !== undefined) this.streams.delete(oldest);
  }
}
