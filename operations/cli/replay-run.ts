/**
 * What `eo replay` does: plan (refusing what must not run), then replay with progress on a
 * terminal, then the summary. Exit code 0 when every record of the window went through, 1 when a
 * shard stopped at a record its function reported, 2 when the replay was refused.
 */
import { createProgress } from '../../cli/progress';
import { printableLines } from '../../cli/terminal-text';
import { parseDuration, planReplay, ReplayRefusedError, replayWindow, ReplayWindowError, runReplay } from '../replay';
import { withContext } from './dlq-context';
import type { ReplayFlags } from './replay-commands';
import { formatReplay } from './replay-output';

export async function runReplayCommand(consumer: string, flags: ReplayFlags): Promise<void> {
  await withContext(flags, async (context) => {
    const nowMs = Date.now();
    let plan;
    let retryForMs: number | undefined;
    try {
      retryForMs = flags.retryFor === undefined ? undefined : parseDuration(flags.retryFor, '--retry-for');
      plan = planReplay(context.topology, consumer, replayWindow(flags.from, flags.to, nowMs), { nowMs, allowPastDedupWindow: flags.allowPastDedupWindow, allowUndeclaredSqlTables: flags.allowUndeclaredSqlTables, generation: flags.generation });
    } catch (error) {
      if (!(error instanceof ReplayRefusedError || error instanceof ReplayWindowError)) throw error;
      process.stderr.write(`eo replay: refused: ${printableLines(error.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const progress = createProgress(process.stderr, flags.quiet || flags.json);
    let sent = 0;
    progress.phase(`${flags.dryRun ? 'dry run: counting' : 'replaying'} ${plan.consumer.consumer}'s records from ${new Date(plan.window.fromMs).toISOString()} to ${new Date(plan.window.toMs).toISOString()}`);
    let summary;
    try {
      summary = await runReplay(context, plan, { dryRun: flags.dryRun, retryForMs, onBatch: (records) => progress.update('records', (sent += records), sent) });
    } finally {
      progress.done();
    }
    process.stdout.write(`${flags.json ? JSON.stringify(summary, null, 2) : printableLines(formatReplay(context.label, summary))}\n`);
    if (!summary.dryRun && !summary.complete) process.exitCode = 1;
  });
}
