/**
 * Which items a DynamoDB request touches, and how: the input to the transaction-conflict model.
 * A `Put` names its item, so its key comes from the table's key schema; without the schema the
 * action's item is unknown (undefined) and takes no part in conflicts.
 */
import { itemIdentity, keyOfItem, type AttributeMap } from './dynamodb-keys';

/** How a request touches its items. */
export type AccessKind = 'transaction' | 'write' | 'batch-write' | 'transact-read' | 'none';

/** The items of one request, one per action for the transactional operations, in order. */
export interface ItemAccess {
  readonly kind: AccessKind;
  /** `itemIdentity` of each action's item; undefined where the item cannot be known. */
  readonly items: readonly (string | undefined)[];
  /** A TransactWriteItems' `ClientRequestToken`. */
  readonly token?: string;
}

/** Key attribute names by table. */
export type KeySchemas = Readonly<Record<string, readonly string[]>>;

type Input = Readonly<Record<string, unknown>>;
type Action = Readonly<{ TableName?: string; Key?: AttributeMap; Item?: AttributeMap }>;

/** The items `operation` touches, as the conflict model sees them. */
export function accessOf(operation: string, input: Input, schemas: KeySchemas): ItemAccess {
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return { kind: 'write', items: [identityOf(input as Action, schemas)] };
    case 'BatchWriteItem':
      return { kind: 'batch-write', items: batchWriteItems(input, schemas) };
    case 'TransactWriteItems':
      return { kind: 'transaction', items: transactItems(input).map((entry) => identityOf(firstAction(entry), schemas)), token: tokenOf(input) };
    case 'TransactGetItems':
      return { kind: 'transact-read', items: transactItems(input).map((entry) => identityOf(firstAction(entry), schemas)) };
    default:
      return { kind: 'none', items: [] };
  }
}

function identityOf(action: Action, schemas: KeySchemas): string | undefined {
  const table = action.TableName;
  if (table === undefined) return undefined;
  const schema = schemas[table];
  const key = action.Key ?? (action.Item !== undefined && schema !== undefined ? keyOfItem(action.Item, schema) : undefined);
  return key === undefined ? undefined : itemIdentity(table, key);
}

function transactItems(input: Input): readonly Readonly<Record<string, Action>>[] {
  return Array.isArray(input.TransactItems) ? input.TransactItems : [];
}

/** The action of a TransactItems entry: its one member (`Put`, `Update`, `Delete`, `ConditionCheck`, `Get`). */
function firstAction(entry: Readonly<Record<string, Action>>): Action {
  return Object.values(entry)[0] ?? {};
}

function batchWriteItems(input: Input, schemas: KeySchemas): (string | undefined)[] {
  const requests = (input.RequestItems ?? {}) as Readonly<Record<string, readonly Readonly<Record<string, Action>>[]>>;
  return Object.entries(requests).flatMap(([table, writes]) =>
    writes.map((write) => identityOf({ TableName: table, ...firstAction(write) }, schemas)),
  );
}

function tokenOf(input: Input): string | undefined {
  return typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined;
}
