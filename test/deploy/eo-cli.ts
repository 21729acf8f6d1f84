/**
 * The DLQ CLI in AWS mode, run as an operator runs it (`npx tsx bin/eo.ts dlq ...`), with the
 * environment pointing the AWS SDK at moto. Its `--json` output is what the test checks.
 */
import type { DlqListing, RedriveResult } from '../../operations/dlq';
import { motoEnv, parseJson, run, type Target } from './commands';

const CLI_TIMEOUT_MS = 120_000;

/** The fields of a row of `eo dlq list --json` that the test reads. */
export type ListedDlq = Pick<DlqListing, 'name' | 'url' | 'arn' | 'sources' | 'visible' | 'inFlight'>;

/** The fields of the summary of `eo dlq redrive --json` that the test reads. */
export type RedriveSummary = Pick<RedriveResult, 'redriven' | 'skipped' | 'failed' | 'refused' | 'pastRetention' | 'records' | 'stoppedEarly' | 'details'>;

/** Runs `eo dlq <args> --stack <stack> --json`, expecting it to exit with `exitCode`, and parses what it printed. */
export async function eoDlq<T>(target: Target, stackName: string, args: readonly string[], exitCode = 0): Promise<T> {
  const step = `eo dlq ${args[0] ?? ''}`;
  const { stdout } = await run('npx', ['tsx', 'bin/eo.ts', 'dlq', ...args, '--stack', stackName, '--json'], { step, env: motoEnv(target), timeoutMs: CLI_TIMEOUT_MS, exitCode });
  return parseJson<T>(step, stdout);
}
