/**
 * A consumer's idempotency table given as one prop: its name in `IDEMPOTENCY_TABLE`, the variable
 * the runtime's one-call handlers read, and exactly the actions the runtime's use of it needs,
 * nothing more.
 */
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { DEDUP_TABLE_VARIABLE } from '../aws/consumer-env';
import { IdempotencyTable } from './idempotency-table';
import { TableAction, type TableAccess, type TableGrant } from './consumer-props';

/** What a consumer keeps in its idempotency table. */
export const IdempotencyUse = {
  /** Dedup records committed in the effects' transactions, and the read of redelivered events' records (`transactionalStrategy`). */
  TRANSACTIONS: 'transactions',
  /** Records of external effects, written beside them (`idempotentEffect`, Powertools underneath). */
  EXTERNAL_EFFECTS: 'external-effects',
} as const;
export type IdempotencyUse = (typeof IdempotencyUse)[keyof typeof IdempotencyUse];

/** The actions each use calls on the table. */
export const IDEMPOTENCY_ACTIONS: Readonly<Record<IdempotencyUse, readonly TableAction[]>> = {
  // A transaction's Put with its condition is PutItem; the read of redeliveries' records is BatchGetItem.
  [IdempotencyUse.TRANSACTIONS]: [TableAction.PUT_ITEM, TableAction.BATCH_GET_ITEM],
  // Powertools: a conditional put, a get of a record in conflict, its update to COMPLETED, its delete after a failed effect.
  [IdempotencyUse.EXTERNAL_EFFECTS]: [TableAction.PUT_ITEM, TableAction.GET_ITEM, TableAction.UPDATE_ITEM, TableAction.DELETE_ITEM],
};

/** The `idempotency` prop: the table, and what the consumer keeps there. */
export interface IdempotencyWiring {
  /** The table: an {@link IdempotencyTable} or a table of the same shape (key `id`, TTL `expiration`). */
  readonly table: IdempotencyTable | ITable;
  /**
   * What the consumer keeps there; the grants are the union of each use's actions.
   * @default [IdempotencyUse.TRANSACTIONS]
   */
  readonly uses?: readonly IdempotencyUse[];
}

/**
 * The table itself: an IdempotencyTable's `table`. Told apart by shape as well as by class, so that
 * an IdempotencyTable from a second copy of this package in one app is not taken for a table.
 */
function tableOf(given: IdempotencyTable | ITable): ITable {
  if (given instanceof IdempotencyTable) return given.table;
  const wrapped = (given as { table?: unknown }).table;
  return !('tableArn' in given) && Construct.isConstruct(wrapped) ? (wrapped as ITable) : given;
}

/** The `tables` entry the prop stands for, keyed by `IDEMPOTENCY_TABLE`; checked first. @throws Error naming what is wrong */
export function idempotencyTableGrant(wiring: IdempotencyWiring, tables: Readonly<Record<string, TableGrant>>): Record<string, TableAccess> {
  if (DEDUP_TABLE_VARIABLE in tables) throw new Error(`give the idempotency table as idempotency or as tables.${DEDUP_TABLE_VARIABLE}, not both`);
  const table = tableOf(wiring.table);
  if (!Construct.isConstruct(table)) throw new Error('idempotency.table must be an IdempotencyTable or a table');
  const uses = wiring.uses ?? [IdempotencyUse.TRANSACTIONS];
  const known = Object.values(IdempotencyUse) as readonly string[];
  const unknown = uses.filter((use) => !known.includes(use));
  if (uses.length === 0 || unknown.length > 0) throw new Error(`idempotency.uses must list IdempotencyUse values (${known.join(', ')}) (given ${JSON.stringify(uses)})`);
  const actions = [...new Set(uses.flatMap((use) => IDEMPOTENCY_ACTIONS[use]))];
  return { [DEDUP_TABLE_VARIABLE]: { table, actions } };
}
