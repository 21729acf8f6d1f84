/** The summary `eo replay` prints: what was read, where from, what each record came to, and what it means. */
import type { ReplaySummary } from '../replay';

export function formatReplay(label: string, summary: ReplaySummary): string {
  const { plan, totals } = summary;
  const window = `${new Date(plan.window.fromMs).toISOString()} to ${new Date(plan.window.toMs).toISOString()}`;
  const lines = [`${summary.dryRun ? 'dry run: ' : ''}replay of ${plan.consumer.consumer} (function ${plan.consumer.functionName}) in ${label}: ${plan.source.kind} ${plan.source.arn}, ${window}`];
  if (plan.trimmedBefore !== undefined) lines.push(`  note: the stream keeps ${plan.source.retentionHours} h; records before ${new Date(plan.trimmedBefore).toISOString()} are gone and were not replayed`);
  if (plan.pastDedupWindow !== undefined) lines.push(`  note: ${plan.pastDedupWindow} (allowed by --allow-past-dedup-window)`);
  if (plan.undeclaredSqlTables !== undefined) lines.push(`  note: ${plan.undeclaredSqlTables} (allowed by --allow-undeclared-sql-tables)`);
  if (summary.archive) lines.push(`  failure archives: ${summary.archive.objects} batch(es) of this function kept (${plan.archives.join(', ')})${summary.archive.truncated ? '; more than one read takes: re-run the replay once a redrive has emptied them' : ''}`);
  for (const shard of summary.shards) {
    const retries = shard.retries ? ` (${shard.retries} sending a batch again from a record the function reported)` : '';
    const sent = summary.dryRun ? '' : `, ${shard.sent} sent in ${shard.invocations} invocation(s)${retries}`;
    const archived = shard.fromArchive ? ` (${shard.fromArchive} from the failure archive, which the stream no longer holds)` : '';
    lines.push(`  ${shard.shardId}: ${shard.inWindow} record(s) in the window${archived}${sent}`);
    if (shard.stoppedAt) lines.push(`    stopped at ${shard.stoppedAt.sequenceNumber}: ${shard.stoppedAt.reason}`);
  }
  const inWindow = summary.shards.reduce((sum, shard) => sum + shard.inWindow, 0);
  if (summary.dryRun) {
    lines.push(`  ${inWindow} record(s) would be sent; nothing was invoked`);
    return lines.join('\n');
  }
  lines.push(`  records: ${totals.records}; applied ${totals.applied}, duplicates ${totals.duplicates}, skipped (not newer) ${totals.skipped}, failed permanently ${totals.permanent} (not sent to the DLQ again), reported ${totals.reported}`);
  lines.push(`  result: ${verdict(summary)}`);
  return lines.join('\n');
}

function verdict(summary: ReplaySummary): string {
  const { totals } = summary;
  if (!summary.complete) return 'incomplete: a shard stopped (above); re-run from its record\'s time once the cause is gone';
  if (totals.applied === 0) return 'no change: every record was applied before, not newer than what is stored, or failed as it did then';
  return `${totals.applied} record(s) applied that had not been`;
}
