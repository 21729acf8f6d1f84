/**
 * What `eo compare` does: pair the two generations' tables (refusing what cannot be compared), read
 * and compare each pair, print the result. Exit code 0 when the generations hold the same, 1 when
 * they differ, 2 when the comparison was refused.
 */
import { printableLines } from '../../cli/terminal-text';
import type { DlqContext } from '../dlq';
import { CompareRefusedError, diffTables, KeySchemaMismatchError, pairGenerations, type GenerationPair, type TableDiff } from '../replay';
import type { CompareFlags } from './compare-commands';
import { formatComparison } from './compare-output';
import { withContext } from './dlq-context';

export async function runCompareCommand(consumer: string, flags: CompareFlags): Promise<void> {
  await withContext(flags, async (context) => {
    let compared: { pair: GenerationPair; diffs: TableDiff[] };
    try {
      compared = await compareGenerations(context, consumer, flags);
    } catch (error) {
      if (!(error instanceof CompareRefusedError || error instanceof KeySchemaMismatchError)) throw error;
      process.stderr.write(`eo compare: refused: ${printableLines(error.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const { pair, diffs } = compared;
    const [live, next] = [pair.live.generation ?? 1, pair.next.generation ?? 1];
    process.stdout.write(`${flags.json ? JSON.stringify({ consumer, live, next, tables: diffs }, null, 2) : formatComparison(consumer, live, next, diffs)}\n`);
    if (diffs.some((diff) => !diff.same)) process.exitCode = 1;
  });
}

/** The generations' tables, paired and compared one pair after another. */
async function compareGenerations(context: DlqContext, consumer: string, flags: CompareFlags): Promise<{ pair: GenerationPair; diffs: TableDiff[] }> {
  const pair = pairGenerations(context.topology, consumer, flags.generation, flags.against);
  const diffs: TableDiff[] = [];
  for (const tables of pair.tables) diffs.push(await diffTables(context.clients.dynamodb, tables, { ignore: flags.ignore, maxExamples: flags.maxExamples }));
  return { pair, diffs };
}
