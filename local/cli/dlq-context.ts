/** Where a `dlq` command runs: the deployed stack on AWS, or with `--local` the stack `eo local up` runs. */
import { Option, type Command } from 'commander';
import { awsDlqContext, DEFAULT_STACK_NAME, DEFAULT_STATE_FILE, localDlqContext, readLocalState, type DlqContext } from '../dlq';

/** The flags every `dlq` command takes. */
export interface TargetFlags {
  readonly local?: boolean;
  readonly stack: string;
  readonly state: string;
  readonly region?: string;
  readonly json?: boolean;
}

/** Adds `--local`, `--stack`, `--region`, `--state` and `--json` to a command. */
export function withTargetOptions(command: Command): Command {
  return command
    .option('--local', 'use the local stack that `eo local up` runs (reads its state file) instead of AWS')
    .option('--stack <name>', 'the deployed stack whose outputs name the queues', DEFAULT_STACK_NAME)
    .option('--region <region>', 'AWS region (default: AWS_REGION or the profile\'s)')
    .addOption(new Option('--state <file>', 'the state file of `eo local up`').default(DEFAULT_STATE_FILE))
    .option('--json', 'print machine-readable JSON on stdout');
}

export interface OpenContext extends DlqContext {
  /** `EffectivelyOnce (local)` or `EffectivelyOnce (us-east-1)`. */
  readonly label: string;
  destroy(): void;
}

/** Clients and topology for the flags; the caller destroys the clients when done. */
export async function openContext(flags: TargetFlags): Promise<OpenContext> {
  if (flags.local) {
    const context = localDlqContext(readLocalState(flags.state));
    return { ...context, label: `${context.topology.stackName} (local)` };
  }
  const context = await awsDlqContext({ stackName: flags.stack, region: flags.region });
  return { ...context, label: `${context.topology.stackName} (${context.topology.region})` };
}

/** Runs `body` with an open context and closes its clients however it ends. */
export async function withContext<T>(flags: TargetFlags, body: (context: OpenContext) => Promise<T>): Promise<T> {
  const context = await openContext(flags);
  try {
    return await body(context);
  } finally {
    context.destroy();
  }
}
