/**
 * `eo compare <consumer> --generation N [--against M]`: a consumer's rebuilt generation held
 * against its live one, table by table, against AWS or (`--local`) the stack `eo local up` runs.
 * See docs/operations.md, "Rebuild". Like replay-commands.ts, this module only declares the
 * command; compare-run.ts does it.
 */
import type { Command } from 'commander';
import { positiveInteger, withTargetOptions, type TargetFlags } from './dlq-commands';

export interface CompareFlags extends TargetFlags {
  readonly generation: number;
  readonly against?: number;
  readonly ignore: string[];
  readonly maxExamples?: number;
}

/** Adds `compare` to the program. */
export function registerCompareCommand(program: Command): void {
  withTargetOptions(
    program
      .command('compare')
      .description('hold a rebuilt generation of a consumer against its live one: every item of each table the two write apart, with the differences (see docs/operations.md, "Rebuild")')
      .argument('<consumer>', 'the consumer\'s name (CONSUMER_NAME, e.g. order-projection)'),
  )
    .requiredOption('--generation <n>', 'the rebuilt generation (its construct\'s generation prop)', positiveInteger)
    .option('--against <n>', 'the live generation (default: the lowest other one)', positiveInteger)
    .option('--ignore <attribute>', 'leave this attribute out of the comparison (one the effect writes anew, a processing time); repeatable', (name: string, names: string[]) => [...names, name], [])
    .option('--max-examples <n>', 'differences listed per table (all are counted; default 20)', positiveInteger)
    .action(async (consumer: string, flags: CompareFlags) => (await import('./compare-run')).runCompareCommand(consumer, flags));
}
