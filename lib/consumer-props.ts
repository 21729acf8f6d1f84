import { Duration, Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { checkDurationRange, checkIntegerRange, checkPattern } from './validation';
import { LAMBDA_LIMITS } from '../aws/limits';
import { CONSUMER_ENV, DEDUP_TABLE_VARIABLE } from '../aws/consumer-env';
import type { ConsumerAlarmsProps } from './consumer-alarms';
import type { IdempotencyWiring } from './idempotency-wiring';
import type { ManagedInstancesProps } from './managed-instances';

/** What a consumer name must look like: it becomes part of dedup keys and resource names. */
export const CONSUMER_NAME_PATTERN = /^[a-z][a-z0-9-]{1,62}$/;

/** The highest generation a consumer may have: the bound catches a typo, no service limits it. */
export const MAX_GENERATION = 999;

/** A name Lambda accepts for an environment variable. */
const ENV_VAR_NAME = /^[a-zA-Z][a-zA-Z0-9_]+$/;

export { CONSUMER_ENV } from '../aws/consumer-env';

/**
 * The DynamoDB data-plane actions a consumer's function can be granted on a table. A transaction
 * has no action of its own: IAM authorizes each of its items as the single-item action it performs
 * (`Put` as `PutItem`, `Update` as `UpdateItem`, `Delete` as `DeleteItem`, `ConditionCheck` as
 * `ConditionCheckItem`), so `TransactWriteItems` needs exactly those.
 */
export const TableAction = {
  GET_ITEM: 'dynamodb:GetItem',
  BATCH_GET_ITEM: 'dynamodb:BatchGetItem',
  QUERY: 'dynamodb:Query',
  SCAN: 'dynamodb:Scan',
  PUT_ITEM: 'dynamodb:PutItem',
  UPDATE_ITEM: 'dynamodb:UpdateItem',
  DELETE_ITEM: 'dynamodb:DeleteItem',
  CONDITION_CHECK_ITEM: 'dynamodb:ConditionCheckItem',
  BATCH_WRITE_ITEM: 'dynamodb:BatchWriteItem',
} as const;
export type TableAction = (typeof TableAction)[keyof typeof TableAction];

/**
 * What a table given bare in `tables` is granted: every call one of the runtime's strategies
 * makes. The transactional strategy's `TransactWriteItems` (`PutItem` for the dedup record,
 * `UpdateItem` for the effects, `DeleteItem` and `ConditionCheckItem` for effects that need them)
 * and its `BatchGetItem` of redelivered events' dedup records; `putIfNewer`'s `PutItem`; and
 * Powertools idempotency's `PutItem`, `GetItem`, `UpdateItem` and `DeleteItem`. No `Scan`,
 * `Query`, `BatchWriteItem`, `DescribeTable` or stream reads.
 */
export const DEFAULT_TABLE_ACTIONS: readonly TableAction[] = [
  TableAction.GET_ITEM,
  TableAction.BATCH_GET_ITEM,
  TableAction.PUT_ITEM,
  TableAction.UPDATE_ITEM,
  TableAction.DELETE_ITEM,
  TableAction.CONDITION_CHECK_ITEM,
];

const TABLE_ACTIONS: ReadonlySet<string> = new Set(Object.values(TableAction));

/** A table and exactly the actions the function may call on it. */
export interface TableAccess {
  /** The table. */
  readonly table: ITable;
  /**
   * The actions the function may call on the table: at least one, each a {@link TableAction}.
   * A table with a customer-managed key also grants its key: decrypt, and encrypt when an action
   * writes.
   */
  readonly actions: readonly TableAction[];
}

/** One entry of `tables`: a table, granted {@link DEFAULT_TABLE_ACTIONS}, or a {@link TableAccess}. */
export type TableGrant = ITable | TableAccess;

/** The table and actions of one `tables` entry, with the default applied to a bare table. */
export function tableAccessOf(grant: TableGrant): TableAccess {
  return isTableAccess(grant) ? grant : { table: grant, actions: DEFAULT_TABLE_ACTIONS };
}

/** Every table is a construct; a {@link TableAccess} is a plain object. */
function isTableAccess(grant: TableGrant): grant is TableAccess {
  return !Construct.isConstruct(grant);
}

/** Props that every consumer construct takes. */
export interface ConsumerProps {
  /**
   * The consumer's name. It prefixes the consumer's dedup keys (`<consumerName>#<eventId>`), so
   * renaming a consumer forgets what it has processed. Must match {@link CONSUMER_NAME_PATTERN}.
   */
  readonly consumerName: string;
  /**
   * The consumer's generation. A rebuild runs a new generation beside the live one: its dedup
   * records are keyed `<consumerName>@g<generation>#<eventId>` (`CONSUMER_GENERATION`), apart from
   * the live generation's, and its effects go to the tables it is given (new ones), so that
   * `eo replay --generation` fills it from the source's history and `eo compare` holds it against
   * the live state before a deploy makes it live (docs/operations.md, "Rebuild").
   * @default 1
   * @range 1..999, a whole number
   */
  readonly generation?: number;
  /** Path of the handler's source file (TypeScript or JavaScript), bundled with esbuild. */
  readonly entry: string;
  /**
   * The name of the exported handler function.
   * @default 'handler'
   */
  readonly handler?: string;
  /** The topic that the consumer's alarms notify. */
  readonly alarmTopic: ITopic;
  /**
   * The tables the function uses, keyed by the environment variable that receives each table's
   * name. The function may call exactly the granted actions on these tables and nothing on any
   * other: `{ table, actions }` grants `actions`; a bare table grants {@link DEFAULT_TABLE_ACTIONS}.
   * A table named under two variables is granted both entries' actions.
   * @default - no tables
   * @example
   * ```ts
   * import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
   * import { AlarmTopic, IdempotencyTable, QueueConsumer, TableAction } from 'effectively-once';
   * const counters = new Table(this, 'Counters', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
   * const idempotency = new IdempotencyTable(this, 'Idempotency');
   * new QueueConsumer(this, 'PageViews', {
   *   consumerName: 'page-view-counter',
   *   entry: 'handlers/page-view-counter.ts',
   *   alarmTopic: new AlarmTopic(this, 'Alarms').topic,
   *   tables: {
   *     COUNTERS_TABLE: { table: counters, actions: [TableAction.UPDATE_ITEM] },
   *     IDEMPOTENCY_TABLE: { table: idempotency.table, actions: [TableAction.PUT_ITEM, TableAction.BATCH_GET_ITEM] },
   *   },
   * });
   * ```
   */
  readonly tables?: Readonly<Record<string, TableGrant>>;
  /**
   * The idempotency table, wired in one prop: its name in `IDEMPOTENCY_TABLE` (what the runtime's
   * `transactionalHandler` and `eo dlq inspect` read) and exactly the actions the consumer's use of
   * it needs: `PutItem` and `BatchGetItem` for dedup records committed with the effects
   * (`IdempotencyUse.TRANSACTIONS`, the default); `PutItem`, `GetItem`, `UpdateItem` and
   * `DeleteItem` for external effects' records (`IdempotencyUse.EXTERNAL_EFFECTS`). Give it here
   * or as `tables.IDEMPOTENCY_TABLE`, not both.
   * @default - none: the table, if any, is in `tables`
   * @example
   * ```ts
   * import { AlarmTopic, IdempotencyTable, QueueConsumer } from 'effectively-once';
   * const idempotencyTable = new IdempotencyTable(this, 'Idempotency');
   * new QueueConsumer(this, 'Ledger', {
   *   consumerName: 'account-ledger',
   *   entry: 'handlers/account-ledger.ts',
   *   alarmTopic: new AlarmTopic(this, 'Alarms').topic,
   *   idempotency: { table: idempotencyTable },
   * });
   * ```
   */
  readonly idempotency?: IdempotencyWiring;
  /**
   * Further environment variables. They may not set any of {@link CONSUMER_ENV} nor a `tables` key.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The Powertools service name (`POWERTOOLS_SERVICE_NAME`).
   * @default - the consumer name; from generation 2, `<consumerName>@g<generation>`, so that the
   * two generations' metrics and alarms stay apart
   */
  readonly serviceName?: string;
  /**
   * The function's timeout.
   * @default 30 seconds (`CONSUMER_DEFAULTS.timeout`)
   * @range 1 second..15 minutes (Lambda's maximum)
   */
  readonly timeout?: Duration;
  /**
   * The function's Lambda runtime: a Node.js one, `nodejs20.x` or newer. Local mode runs the
   * function on that runtime's Node.js major.
   * @default - `CONSUMER_RUNTIME`: the newest Node.js runtime the installed aws-cdk-lib knows, so
   *   that cdk-nag's AwsSolutions-L1 (the latest runtime) passes whichever aws-cdk-lib the app installs
   */
  readonly runtime?: Runtime;
  /**
   * The function's memory, in MiB.
   * @default 256 (`CONSUMER_DEFAULTS.memorySize`); 2048 with `managedInstances`
   * @range 128..10240, a whole number (Lambda's limits); from 2048 with `managedInstances`
   */
  readonly memorySize?: number;
  /**
   * Runs the function on Lambda Managed Instances: a capacity provider's EC2 instances, where one
   * execution environment takes several invocations at once and a timeout does not stop the code.
   * Refused where AWS refuses it (memory under 2048 MB, Node.js before 22). Local mode runs it so
   * too (`eo local up`, `npm run demo -- --managed-instances`).
   * @default - Lambda's default model: one invocation per execution environment
   */
  readonly managedInstances?: ManagedInstancesProps;
  /**
   * The TTL of the dedup records the handler writes (`DEDUP_TTL_SECONDS`). It must outlive every
   * way an event can come back through one redrive: source retention + DLQ retention +
   * `redriveAllowance` + source retention again, which the redriven copy gets afresh
   * (`minimumDedupTtl` has the timeline). A copy redriven again after it failed again is checked
   * by `eo dlq redrive`, which holds it back when it could outlive the dedup record.
   * @default - exactly that sum, the shortest safe window
   * @range that sum..3650 days (the upper bound catches a unit mistake; no service limits it)
   */
  readonly dedupTtl?: Duration;
  /**
   * How long a redrive out of the DLQ may take, on top of the DLQ's retention: a term of the
   * dedup window (`dedupTtl`).
   * @default 1 day (`CONSUMER_DEFAULTS.redriveAllowance`)
   * @range 0 seconds..365 days (the upper bound catches a unit mistake; no service limits it)
   */
  readonly redriveAllowance?: Duration;
  /**
   * The consumer's alarms besides its DLQ's (function errors and throttles, conflicting
   * duplicates, the mapping's failed invocations and dropped events, a queue's oldest message),
   * each with ALARM and OK actions on `alarmTopic`: tune one (`{ threshold, periods }`) or turn it
   * off (`false`). See `ConsumerAlarms` (consumer-alarms.ts).
   * @default - every alarm, with the defaults of `CONSUMER_ALARM_DEFAULTS`
   */
  readonly alarms?: ConsumerAlarmsProps;
}

/** The consumer's generation: the prop, else 1. */
export function generationOf(props: Pick<ConsumerProps, 'generation'>): number {
  return props.generation ?? 1;
}

/** The service name of the runtime's logs and metrics: the prop, else the consumer name, marked with its generation from 2 on. */
export function serviceNameOf(props: Pick<ConsumerProps, 'consumerName' | 'generation' | 'serviceName'>): string {
  const generation = generationOf(props);
  return props.serviceName ?? (generation === 1 ? props.consumerName : `${props.consumerName}@g${generation}`);
}

/** Throws on the first invalid prop shared by every consumer. */
export function validateConsumerProps(props: ConsumerProps): void {
  checkPattern('consumerName', props.consumerName, CONSUMER_NAME_PATTERN);
  checkIntegerRange('generation', props.generation, 1, MAX_GENERATION);
  checkDurationRange('timeout', props.timeout, Duration.seconds(1), Duration.seconds(LAMBDA_LIMITS.maxTimeoutSeconds));
  checkIntegerRange('memorySize', props.memorySize, 128, 10_240);
  // No service limits these two; the upper bounds only catch a unit mistake (hours for seconds).
  checkDurationRange('redriveAllowance', props.redriveAllowance, Duration.seconds(0), Duration.days(365));
  checkDurationRange('dedupTtl', props.dedupTtl, Duration.seconds(1), Duration.days(3_650));
  checkEnvironmentNames(props);
  checkTableGrants(props.tables ?? {});
}

function checkEnvironmentNames(props: ConsumerProps): void {
  const reserved = new Set<string>(Object.values(CONSUMER_ENV));
  const tableVariables = [...Object.keys(props.tables ?? {}), ...(props.idempotency ? [DEDUP_TABLE_VARIABLE] : [])];
  for (const name of tableVariables) {
    checkPattern('tables key', name, ENV_VAR_NAME);
    if (reserved.has(name)) throw new Error(`tables must not use ${name}: the construct sets it`);
  }
  for (const name of Object.keys(props.environment ?? {})) {
    if (reserved.has(name)) throw new Error(`environment must not set ${name}: the construct sets it`);
    if (tableVariables.includes(name)) throw new Error(`environment must not set ${name}: ${name in (props.tables ?? {}) ? 'tables' : 'idempotency'} sets it`);
  }
}

function checkTableGrants(tables: Readonly<Record<string, TableGrant>>): void {
  for (const [variable, grant] of Object.entries(tables)) {
    if (isTableAccess(grant)) checkTableAccess(`tables.${variable}`, grant);
  }
}

/** Props come from JavaScript too, where the types check nothing: each part is checked. */
function checkTableAccess(name: string, access: Partial<Record<keyof TableAccess, unknown>> | null): void {
  if (access === null || typeof access !== 'object' || !Construct.isConstruct(access.table)) {
    throw new Error(`${name} must be a table or { table, actions } (given ${describeValue(access)})`);
  }
  if (!Array.isArray(access.actions) || access.actions.length === 0) {
    throw new Error(`${name}.actions must list at least one TableAction (given ${describeValue(access.actions)})`);
  }
  const unknown = access.actions.filter((action: unknown) => !isTableAction(action));
  if (unknown.length > 0) {
    const allowed = [...TABLE_ACTIONS].join(', ');
    throw new Error(`${name}.actions must be TableAction values (${allowed}) (given ${unknown.map(describeValue).join(', ')})`);
  }
}

function isTableAction(action: unknown): boolean {
  return typeof action === 'string' && (TABLE_ACTIONS.has(action) || Token.isUnresolved(action));
}

/** A value as an error message shows it, constructs by their path. */
function describeValue(value: unknown): string {
  const withPaths = (_key: string, item: unknown): unknown => (Construct.isConstruct(item) ? item.node.path : item);
  try {
    return JSON.stringify(value, withPaths) ?? String(value);
  } catch {
    return String(value);
  }
}
