/**
 * `eo replay <consumer> --from TIME [--to TIME]`: the records a stream consumer's source still holds
 * in a window go through its own function again, against AWS or (`--local`) the stack `eo local up`
 * runs. See docs/operations.md, "Replay". Like dlq-commands.ts, this module only declares the
 * command; replay-run.ts does it.
 */
import type { Command } from 'commander';
import { positiveInteger, withTargetOptions, type TargetFlags } from './dlq-commands';

export interface ReplayFlags extends TargetFlags {
  readonly from: string;
  readonly to?: string;
  readonly dryRun?: boolean;
  readonly quiet?: boolean;
  readonly allowPastDedupWindow?: boolean;
  readonly allowUndeclaredSqlTables?: boolean;
  readonly generation?: number;
  readonly retryFor?: string;
}

/** Adds `replay` to the program. */
export function registerReplayCommands(program: Command): void {
  withTargetOptions(
    program
      .command('replay')
      .description('send a window of what a stream consumer\'s source still holds through its own function again: applied events change nothing, new ones apply (see docs/operations.md)')
      .argument('<consumer>', 'the consumer\'s name (CONSUMER_NAME, e.g. order-projection) or its function\'s'),
  )
    .requiredOption('--from <time>', 'start of the window: an ISO 8601 time (2026-12-01T09:00:00Z) or a duration back from now (90m, 6h, 2d)')
    .option('--to <time>', 'end of the window (exclusive), in the same forms (default: now)')
    .option('--generation <n>', 'replay into this generation of the consumer (its generation prop): a rebuild, filled from the stream (see docs/operations.md, "Rebuild")', positiveInteger)
    .option('--retry-for <duration>', 'how long a record the function keeps reporting (or a batch it keeps failing) is sent again, with backoff, before its shard stops: 90s, 5m, 1h (default 5m)')
    .option('--dry-run', 'count the records in the window per shard; invoke nothing')
    .option('--quiet', 'no progress on stderr')
    .option('--allow-past-dedup-window', 'replay also where the consumer\'s dedup records may have expired (those events are applied again)')
    .option('--allow-undeclared-sql-tables', 'replay into a generation of a SQL consumer although it or an earlier generation declares no effect tables (connect\'s effectTables), so a shared table cannot be told: check its handlers\' SQL first')
    .action(async (consumer: string, flags: ReplayFlags) => (await import('./replay-run')).runReplayCommand(consumer, flags));
}
