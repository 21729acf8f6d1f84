/**
 * account-ledger (SQS FIFO, batch commit): appends each `ledger.entry` to its account's history and
 * adds its amount to the balance, once per event and in the order the account's entries were
 * sent. The queue keeps each account's entries in order (the account is the message group); the
 * runtime keeps that order through failures: at an account's first failure that will be retried,
 * its later entries of the batch wait for the redelivery.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import {
  consumerEnv,
  createConsumer,
  DlqSender,
  requireEnv,
  route,
  sharedClients,
  SourceKind,
  transactionalStrategy,
  VisibilityBackoff,
  type AwsClients,
  type BatchHandler,
  type Effect,
  type RetryOptions,
  type VisibilityBackoffOptions,
} from '../../lambdas/runtime';

z.config(en());

export const CONSUMER_NAME = 'account-ledger';
export const LEDGER_ENTRY = 'ledger.entry';

/** `{ accountId, seq, amount }`: the account's `seq`-th entry, `amount` in cents. */
const ledgerEntryPayload = z.object({
  accountId: z.string().check(z.minLength(1), z.maxLength(128)),
  seq: z.number().check(z.int(), z.positive()),
  amount: z.number().check(z.int()),
});
export type LedgerEntryPayload = z.infer<typeof ledgerEntryPayload>;

export interface AccountLedgerConfig {
  readonly ledgerTable: string;
  readonly idempotencyTable: string;
  readonly consumerName?: string;
  /** The consumer's generation (`CONSUMER_GENERATION`): its dedup records' namespace. @default 1 */
  readonly generation?: number;
  readonly dlqUrl?: string;
  readonly sourceQueueUrl?: string;
  readonly maxAttempts?: number;
  readonly maxReceiveCount?: number;
  readonly dedupTtlSeconds?: number;
  readonly clients: AwsClients;
  readonly retry?: RetryOptions;
  readonly visibility?: Omit<VisibilityBackoffOptions, 'queueUrl'>;
}

/**
 * The effect of one entry on `account#<accountId>`: its `seq` appended to `history`, its amount
 * added to `balance`. The history shows the order entries were applied in.
 */
export function ledgerEffects(ledgerTable: string, entry: LedgerEntryPayload): Effect[] {
  return [
    {
      kind: 'update',
      table: ledgerTable,
      key: { pk: `account#${entry.accountId}` },
      updateExpression: 'SET #history = list_append(if_not_exists(#history, :none), :entry) ADD #balance :amount',
      names: { '#history': 'history', '#balance': 'balance' },
      values: { ':none': [], ':entry': [entry.seq], ':amount': entry.amount },
    },
  ];
}

/** Builds the handler from explicit settings (tests, local mode). */
export function createAccountLedger(config: AccountLedgerConfig): BatchHandler {
  const name = config.consumerName ?? CONSUMER_NAME;
  const { sqs, dynamodb } = config.clients;
  return createConsumer({
    name,
    generation: config.generation,
    source: SourceKind.SQS,
    routes: { [LEDGER_ENTRY]: route(ledgerEntryPayload, (event) => ledgerEffects(config.ledgerTable, event.payload)) },
    strategy: transactionalStrategy({ dynamodb, mode: 'batch', dedup: { table: config.idempotencyTable, consumer: name, generation: config.generation, ttlSeconds: config.dedupTtlSeconds }, retry: config.retry }),
    dlq: config.dlqUrl ? new DlqSender(sqs, config.dlqUrl, config.retry) : undefined,
    maxAttempts: config.maxAttempts,
    maxReceiveCount: config.maxReceiveCount,
    visibility: new VisibilityBackoff(sqs, { ...config.visibility, queueUrl: config.sourceQueueUrl }),
  });
}

/** Reads `LEDGER_TABLE`, `IDEMPOTENCY_TABLE` and the common consumer settings. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AccountLedgerConfig {
  return {
    ...consumerEnv(CONSUMER_NAME, env),
    ledgerTable: requireEnv('LEDGER_TABLE', env),
    idempotencyTable: requireEnv('IDEMPOTENCY_TABLE', env),
    clients: sharedClients(),
  };
}

let fromEnv: BatchHandler | undefined;

/** The Lambda entry point; configured from the environment on first use. */
export const handler: BatchHandler = (event, context) => {
  fromEnv ??= createAccountLedger(configFromEnv());
  return fromEnv(event, context);
};
