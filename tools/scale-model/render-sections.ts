/** The sections of docs/scale.md that show the model's figures, one function per section. */
import { ASSUMED, DYNAMODB, LAMBDA, STREAMS } from './assumptions';
import { RATES } from './concurrency';
import type { CostRow } from './cost';
import { dollars, formatNumber, markdownTable, tagged, whole } from './format';
import type { Figure } from './figures';
import type { ScaleModel } from './model';

/** `local` when the bench ran on the bare engine, else the latency profile its batches waited (`aws-latency`). */
function measuredLabel(model: ScaleModel): string {
  const { name } = model.run.latencyProfile;
  return name === 'none' ? 'local' : `${name}-latency`;
}

/** What the measured column is: a batch's time on the bare engine, or under the latency profile. */
function measuredSentence(model: ScaleModel): string {
  const { name, scale } = model.run.latencyProfile;
  if (name === 'none') return 'The local column is what a batch took against DynamoDB Local (batch size over the measured events per second), for comparison.';
  return (
    `The ${measuredLabel(model)} column is what a batch took with every DynamoDB request waiting the \`${name}\` latency profile${scale === 1 ? '' : ` x${scale}`} (emulator/gateway/latency-profile.ts; batch size over the measured events per second), ` +
    "on the bench machine's full core rather than Lambda's share of one."
  );
}

/** How long a batch takes, projected and local. */
export function durationSection(model: ScaleModel): string {
  const { batchSize } = model.run;
  const rows = model.durations.map((duration) => [
    `\`${duration.strategy}\``,
    tagged(duration.benchCpuMs),
    tagged(duration.lambdaCpuMs),
    duration.waitedMs ? `${roundTripCounts(duration)}, waiting ${tagged(duration.waitedMs)} ms` : duration.roundTrips.map((trips) => `${formatNumber(trips.perBatch.value)} ${trips.command.replace(/Command$/, '')} x ${trips.latencyMs.value} ms`).join(' + ') || 'none',
    tagged(duration.projectedMs),
    tagged(duration.localMs),
  ]);
  const share = model.durations[0]?.vcpuShare.value ?? 1;
  return [
    '## How long a batch takes',
    `Everything per queue, per invocation and per GB-second below rests on the time one invocation of ${batchSize} records takes. ` +
      'The bench cannot measure it on AWS, so it is projected: the CPU time the bench process spent per record, times the batch size, ' +
      `stretched to the share of a vCPU that ${model.settings.memoryMb} MB buys (Lambda gives one vCPU at ${formatNumber(LAMBDA.mibPerVcpu.value)} MB, so ${model.settings.memoryMb} MB gets ${share.toFixed(3)} of one), ` +
      roundTripSentence(model) +
      measuredSentence(model),
    markdownTable(['strategy', 'CPU ms per batch, bench machine', `CPU ms per batch at ${model.settings.memoryMb} MB`, 'DynamoDB round trips per batch', 'projected ms per batch', `${measuredLabel(model)} ms per batch`], rows),
    ...(model.run.latencyProfile.name === 'none' ? ['Batch commit overlaps up to 4 transactions whose items differ, and the peer runs a batch\'s records at once, which the projection ignores: it is an upper bound on the round-trip part.'] : []),
  ].join('\n\n');
}

/** Requests per batch by command, e.g. `1.97 TransactWriteItems + 0.133 BatchGetItem`. */
function roundTripCounts(duration: ScaleModel['durations'][number]): string {
  return duration.roundTrips.map((trips) => `${formatNumber(trips.perBatch.value)} ${trips.command.replace(/Command$/, '')}`).join(' + ') || 'none';
}

/** How the round-trip part of the projection is made: measured waits under a latency profile, or assumed latencies one after another. */
function roundTripSentence(model: ScaleModel): string {
  if (model.run.latencyProfile.name === 'none') {
    return `plus the batch's DynamoDB requests one after another at an assumed round trip of ${ASSUMED.transactWriteLatencyMs.value} ms for a TransactWriteItems and ${ASSUMED.requestLatencyMs.value} ms for anything else. `;
  }
  return (
    `plus what the batch's DynamoDB requests waited in the bench under the \`${model.run.latencyProfile.name}\` latency profile (its measured time per batch less the bench's CPU time), ` +
    "concurrent requests overlapping as they did there: the peer's records run at once, batch commit's transactions too. "
  );
}

/** Events per second one hot key takes: the worst case and the bench's hot-item rows. */
export function hotKeySection(model: ScaleModel): string {
  const { transactionsPerEvent, worstCase, bench } = model.hotKeys;
  const { days, pages } = model.run.workload;
  const modelRows = worstCase.map((row) => [`\`${row.strategy}\``, whole(row.shards), tagged(row.writeUnitsPerEvent), tagged(row.eventsPerSecond)]);
  const benchRows = bench.map((row) => [
    `\`${row.strategy}\``,
    whole(row.shards),
    whole(row.consumers),
    `\`${row.key}\``,
    tagged(row.writeUnitsPerEvent),
    tagged(row.eventsPerSecond),
    tagged(row.worstCase.writeUnitsPerEvent),
    tagged(row.conflictsPer1000),
  ]);
  return [
    '## Per hot key',
    `One item takes at most ${formatNumber(DYNAMODB.itemWriteUnits.value)} write units a second. Batch commit writes a counter once per transaction, whatever number of events the transaction sums into it, ` +
      `at ${DYNAMODB.transactionalWriteUnitsPerKb.value} write units (a transactional write of an item under 1 KB); the bench's \`batch\` strategy made ${tagged(transactionsPerEvent)} TransactWriteItems per record. ` +
      `(a transaction holds at most ${DYNAMODB.transactionActions.value} actions and 4 MB, so a batch of ${model.run.batchSize} events takes more than one). ` +
      `Spread over N shards, each shard takes 1/N of that. Powertools adds to the day counter with one \`UpdateItem\` per event, ${DYNAMODB.standardWriteUnitsPerKb.value} write unit, on one item. ` +
      "The most popular page's counter is written no more often than that (batch: at most once per transaction; Powertools: once per view of that page), so the day counter is the hot key.",
    '**Worst case**: the whole traffic of a day lands on one day counter, and every transaction (or every event) writes it.',
    markdownTable(['strategy', 'shards', 'write units per event on the hottest item', 'events/s one hot key takes'], modelRows),
    `**In the bench**: the hot-item rows' hottest item, on their workload, which spreads the views over ${days} days and ${pages} pages (Zipf popularity), so that a day counter gets a share of the events and the most popular page is in almost every transaction. ` +
      'Several consumers at once on one unsharded counter cancel each other\'s transactions, and every retry writes again: that is the difference between the consumer counts.',
    benchRows.length > 0
      ? markdownTable(['strategy', 'shards', 'consumers', 'hottest item', 'write units per event on it', 'events/s it takes at that rate', 'worst case per event', 'conflicts per 1,000 events'], benchRows)
      : 'The bench run has no hot-item rows (it was run with `--hot-item-events 0`).',
  ].join('\n\n');
}

/** Events per second one table takes at the on-demand quota. */
export function tableSection(model: ScaleModel): string {
  const rows = model.tables.map((row) => [
    `\`${row.strategy}\``,
    tagged(row.writeUnitsPerEvent),
    tagged(row.readUnitsPerEvent),
    tagged(row.eventsPerSecond.writes),
    row.eventsPerSecond.reads ? tagged(row.eventsPerSecond.reads) : 'no reads',
    tagged(row.eventsPerSecond.warmWrites),
  ]);
  return [
    '## Per table',
    `An on-demand table takes ${formatNumber(DYNAMODB.tableWriteUnits.value)} write and ${formatNumber(DYNAMODB.tableReadUnits.value)} read request units a second by default (a quota that can be raised), ` +
      `and a new one ${formatNumber(DYNAMODB.newTableWarmWriteUnits.value)} write units a second at once before it scales. The bench counts the write and read units of every request; ` +
      'the example keeps dedup records and counters in two tables, so putting all of them on one table, as here, is the worst case.',
    markdownTable(['strategy', 'WRU per event', 'RRU per event', `events/s at ${formatNumber(DYNAMODB.tableWriteUnits.value)} WRU/s`, `events/s at ${formatNumber(DYNAMODB.tableReadUnits.value)} RRU/s`, `events/s on a new table (${formatNumber(DYNAMODB.newTableWarmWriteUnits.value)} WRU/s)`], rows),
  ].join('\n\n');
}

/** Events per second one queue's mapping takes. */
export function queueSection(model: ScaleModel): string {
  const rows = model.queues.map((row) => [`\`${row.strategy}\``, whole(row.concurrency), tagged(row.inFlight), tagged(row.minutesToScale), tagged(row.projected), tagged(row.local)]);
  return [
    '## Per queue',
    'A standard queue takes a nearly unlimited number of calls a second, so the queue is not the limit; the mapping is: ' +
      `concurrent invocations x ${model.run.batchSize} records / seconds per batch. The example deploys \`maxConcurrency\` ${model.settings.queueMaxConcurrency} ` +
      `(\`QUEUE_CONSUMER_DEFAULTS\`); ${formatNumber(LAMBDA.sqsMaximumConcurrency.value)} is the most a mapping allows. A mapping starts at ${LAMBDA.sqsInitialBatches.value} concurrent batches and adds up to ${LAMBDA.sqsScaleUpPerMinute.value} a minute; ` +
      `a standard queue holds about ${formatNumber(STREAMS.sqsInFlight.value)} messages in flight.`,
    markdownTable(['strategy', 'maxConcurrency', 'messages in flight', 'minutes to scale up to it', 'events/s, projected duration', `events/s, ${measuredLabel(model)} duration`], rows),
  ].join('\n\n');
}

/** Events per second one Kinesis shard takes into the order projection. */
export function shardSection(model: ScaleModel): string {
  const rows = model.shards.map((row) => [whole(row.parallelizationFactor), tagged(row.writeLimit), tagged(row.consumer), tagged(row.sustained)]);
  return [
    '## Per Kinesis shard',
    `A shard takes ${formatNumber(STREAMS.kinesisShardWriteRecords.value)} records a second and 1 MB a second, so records up to ${tagged(model.largestRecordAtFullRate)} bytes reach the record limit first. ` +
      `The order projection reads a shard one batch of ${model.settings.streamBatchSize} at a time (ParallelizationFactor 1, the default; up to ${LAMBDA.maxParallelizationFactor.value}) and writes one conditional \`PutItem\` per record, ` +
      `in order, one after another: at an assumed ${ASSUMED.requestLatencyMs.value} ms a put, that is the consumer's rate. The bench does not run this handler, so its CPU time is not in the figure. ` +
      'Reads (2 MB a second per shard, shared by the polling consumers) do not bind while one consumer reads the shard.',
    markdownTable(['ParallelizationFactor', 'shard write limit, records/s', 'order projection, records/s', 'records/s one shard sustains'], rows),
  ].join('\n\n');
}

/** Lambda concurrency and day-counter shards at each rate. */
export function concurrencySection(model: ScaleModel): string {
  const { settings } = model;
  const yes = (fits: boolean): string => (fits ? 'yes' : '**no**');
  const shards = (figure: Figure | undefined): string => (figure === undefined ? 'n/a' : figure.value > settings.maxShards ? `**${tagged(figure)} (above ${whole(settings.maxShards)})**` : tagged(figure));
  const rows = model.concurrency.map((row) => [
    `\`${row.strategy}\``,
    whole(row.rate),
    tagged(row.projected),
    tagged(row.local),
    yes(row.fits.account),
    yes(row.fits.deployedMaxConcurrency),
    yes(row.fits.mappingMaximum),
    shards(row.shardsForWrites),
    shards(row.shardsForConflicts),
  ]);
  return [
    `## Lambda concurrency at ${RATES.map((rate) => formatNumber(rate)).join(', ')} events per second`,
    "By Little's law, the invocations in flight are the events per second times the seconds one event takes (a batch's duration over its size). " +
      `They must fit the account's ${formatNumber(LAMBDA.accountConcurrency.value)} (default regional quota, shared by every function), the mapping's \`maxConcurrency\` (${settings.queueMaxConcurrency} as deployed) ` +
      `and the mapping's ceiling of ${formatNumber(LAMBDA.sqsMaximumConcurrency.value)}. The day counter needs shards for its write units (rate x write units per event on it / ${formatNumber(DYNAMODB.itemWriteUnits.value)}) ` +
      `and, under batch commit, ${settings.shardsPerConcurrentInvocation} per concurrent invocation for conflicts to stay rare (docs/patterns/sharded-counters.md); the runtime allows at most ${whole(settings.maxShards)}. ` +
      "Powertools' plain updates do not conflict with each other, so only write units count for it. " +
      `Lambda adds up to ${formatNumber(LAMBDA.scalingPerTenSeconds.value)} execution environments every 10 seconds per function; an SQS mapping's ${LAMBDA.sqsScaleUpPerMinute.value} a minute is slower, so the minutes to scale in the queue table are the ones that count.`,
    markdownTable(['strategy', 'events/s', 'concurrency, projected', `concurrency, ${measuredLabel(model)} duration`, `fits ${formatNumber(LAMBDA.accountConcurrency.value)} account`, `fits maxConcurrency ${settings.queueMaxConcurrency}`, `fits ${formatNumber(LAMBDA.sqsMaximumConcurrency.value)}`, 'day-counter shards for write units', `shards against conflicts (deployed: ${whole(settings.counterShards)})`], rows),
  ].join('\n\n');
}

type CostLine = readonly [label: string, pick: (row: CostRow) => Figure];

const COST_LINES: readonly CostLine[] = [
  ['DynamoDB write request units', (row) => row.dynamodbWrites],
  ['DynamoDB read request units', (row) => row.dynamodbReads],
  ['Lambda compute, arm64, projected duration', (row) => row.lambdaCompute],
  ['Lambda requests (one per batch)', (row) => row.lambdaRequests],
  ['SQS requests (send, receive, delete)', (row) => row.sqsRequests],
  ['**total**', (row) => row.total],
  ['Lambda compute, arm64, {measured} duration', (row) => row.lambdaComputeLocal],
  ['total with the {measured} duration', (row) => row.totalLocal],
  ['Lambda compute on x86_64, projected duration (not deployed)', (row) => row.lambdaComputeX86],
];

/** What a ratio to a run's peer is worth when that peer ran one record at a time (runs before issue 27). */
const SEQUENTIAL_PEER =
  ' These ratios, and the `powertools` Lambda lines, were measured against a sequential peer (Powertools\' idempotency inside our own consumer, one record at a time, not its `BatchProcessor` with records in parallel as its users run it): withdrawn until re-measured.';

/** Dollars per million events, line by line, and the ratio of the two strategies. */
export function costSection(model: ScaleModel): string {
  const rows = COST_LINES.map(([label, pick]) => [label.replace('{measured}', measuredLabel(model)), ...model.costs.map((row) => tagged(pick(row), dollars))]);
  const { batchSize } = model.run;
  return [
    '## Dollars per million events',
    'Per million records delivered, duplicates included, at the prices listed below: the write and read units the bench counted, ' +
      `${model.settings.memoryMb} MB of arm64 Lambda (as deployed) for the time a batch takes, one Lambda request per batch of ${batchSize}, and SQS requests: ` +
      `the producer's \`SendMessageBatch\` of ${model.settings.producerBatchEntries} (\`publishToSqs\`), and the mapping's receives and deletes, assumed ${ASSUMED.sqsMessagesPerReceive.value} messages each (AWS does not say how its pollers call SQS; empty receives of an idle queue are not counted).`,
    markdownTable(['line', ...model.costs.map((row) => `\`${row.strategy}\``)], rows),
    `\`batch\` costs ${tagged(model.costRatio.total, (value) => `${value.toFixed(2)}x`)} what \`powertools\` costs in all, and ${tagged(model.costRatio.dynamodb, (value) => `${value.toFixed(2)}x`)} on DynamoDB alone.${model.run.peerInParallel ? '' : SEQUENTIAL_PEER}`,
  ].join('\n\n');
}
