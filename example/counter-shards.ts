/**
 * Shard items of each page-view counter: every view adds to its day's counter, so without shards
 * all concurrent invocations would contend for one item. 16 shards for each invocation the
 * mapping runs at once (QueueConsumer's default maxConcurrency is 16): each commits up to 4
 * transactions at once on consecutive shards, with room to spare for the lanes to settle apart
 * (docs/patterns/sharded-counters.md has the figures). Raise it with maxConcurrency; never lower it.
 */
export const PAGE_VIEW_COUNTER_SHARDS = 256;
