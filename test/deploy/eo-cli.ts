/**
 * The DLQ CLI in AWS mode, run as an operator runs it (`npx tsx bin/eo.ts dlq ...`), with the
 * environment pointing the AWS SDK at moto. Its `--json` output is what the test checks.
 */
import { motoEnv, parseJson, run, type Target } from './commands';

const CLI_TIMEOUT_MS = 120_000;

/** One row of `eo dlq list --json`. */
export interface ListedDlq {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly sources: readonly { readonly role: string; readonly arn: string }[];
  readonly visible: number;
  readonly inFlight: number;
}

/** The summary of `eo dlq redrive --json`. */
export interface RedriveSummary {
  readonly redriven: number;
  readonly skipped: number;
  readonly failed: number;
  readonly pastRetention: number;
  readonly records: number;
  readonly stoppedEarly?: string;
}

/** Runs `eo dlq <args> --stack <stack> --json` and parses what it printed. */
export async function eoDlq<T>(target: Target, stackName: string, args: readonly string[]): Promise<T> {
  const step = `eo dlq ${args[0] ?? ''}`;
  const { stdout } = await run('npx', ['tsx', 'bin/eo.ts', 'dlq', ...args, '--stack', stackName, '--json'], { step, env: motoEnv(target), timeoutMs: CLI_TIMEOUT_MS });
  return parseJson<T>(step, stdout);
}
