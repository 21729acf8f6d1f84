import type { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONSUMER_ENV, type ConsumerProps, generationOf, serviceNameOf, TableAction, type TableAccess, type TableGrant, tableAccessOf } from './consumer-props';
import { ControlTowerRule, declineControlTowerRule } from './control-tower';
import { CONSUMER_DEFAULTS, CONSUMER_RUNTIME, METRICS_NAMESPACE } from './defaults';
import { idempotencyTableGrant } from './idempotency-wiring';
import { checkManagedInstances, MANAGED_INSTANCES_DEFAULT_MEMORY_MB, placeOnCapacityProvider } from './managed-instances';
import { checkConsumerRuntime, esbuildTargetOf, newestNodeRuntime } from './node-runtime';

/** What a consumer's function is wired to, beyond its props. */
export interface ConsumerFunctionWiring {
  /** The consumer's DLQ: the function sends permanent failures there, wrapped with their context. */
  readonly deadLetterQueue: IQueue;
  /** The TTL of the dedup records, after the construct applied its default. */
  readonly dedupTtl: Duration;
  /** Environment that only this kind of source needs (e.g. the SQS source queue's URL). */
  readonly sourceEnvironment?: Readonly<Record<string, string>>;
}

/**
 * How every consumer's function is bundled (esbuild, run by CDK), with the target of
 * `CONSUMER_RUNTIME`; a function on another `runtime` gets that runtime's target. Exported for the
 * benchmark's cold-start table, which bundles the handlers with exactly these options.
 */
export const CONSUMER_BUNDLING: BundlingOptions = {
  minify: true,
  // Stack excerpts in DLQ failure context are only useful when they map back to the source.
  sourceMap: true,
  target: esbuildTargetOf(CONSUMER_RUNTIME),
  // Nothing external, the AWS SDK included. CDK's default for Node.js 18+ leaves `@aws-sdk/*`
  // (and `@smithy/*`, with the sdkV3ExcludeSmithyPackages flag on in cdk.json) to the Lambda
  // runtime's copy: a version that no test, local run or demo here ever ran, and that changes
  // when AWS updates the runtime. Bundled, the function runs on package-lock's SDK, as it does in
  // local mode. The cost, measured by `npm run bench` (docs/performance.md, Cold start): about
  // 650 KiB more per bundle (2.2x) and about 20 ms more to load it (1.2x).
  externalModules: [],
};

/** Why a consumer's log group has no key of our own (CT.CLOUDWATCH.PR.3). */
const LOG_GROUP_KEY_REASON =
  'CloudWatch Logs encrypts every log group at rest. A customer-managed key would change nothing about ' +
  'who may read the logs (IAM decides) and add a key policy to get wrong, with logs lost while the ' +
  'service cannot use the key. The runtime logs event ids and error messages; the payloads are in ' +
  'the DLQs, which use SQS-managed encryption as well.';

/** Why a consumer's function runs outside a VPC (CT.LAMBDA.PR.3). */
const NO_VPC_REASON =
  'The function calls only AWS APIs (DynamoDB, SQS, SNS), over TLS and signed with its own role, and ' +
  'Lambda itself polls its queue or stream: nothing it reaches lives in a network. A VPC would add an ' +
  'interface endpoint per service and zone, or a NAT gateway, to pay for, and protect nothing.';

/**
 * Why a consumer's function on Lambda Managed Instances has no `VpcConfig` (CT.LAMBDA.PR.3): it
 * runs on the capacity provider's instances, in the capacity provider's subnets and security
 * groups, which decide its network; a function there takes no VPC settings of its own.
 */
const MANAGED_INSTANCES_VPC_REASON =
  'The function runs on Lambda Managed Instances: on the EC2 instances of its capacity provider, which ' +
  'launches them in the subnets and security groups it names. Its network is the capacity provider\'s ' +
  'VPC; a function on a capacity provider takes no VpcConfig of its own.';

/** The function's memory: the prop, else the default of its model (Lambda's default, or Managed Instances' least). */
function memoryOf(props: ConsumerProps): number {
  return props.memorySize ?? (props.managedInstances ? MANAGED_INSTANCES_DEFAULT_MEMORY_MB : CONSUMER_DEFAULTS.memorySize);
}

/**
 * Adds a consumer's function (ids `Role`, `LogGroup`, `Function` in `scope`) with least-privilege
 * access: write its own logs, send to its DLQ, call the granted actions on the tables in its props
 * (see `ConsumerProps.tables`). The event source grants its own reads when it is added.
 */
export function addConsumerFunction(
  scope: Construct,
  props: ConsumerProps,
  wiring: ConsumerFunctionWiring,
): NodejsFunction {
  const memorySize = memoryOf(props);
  // Read from Runtime.ALL now, not at import: whatever runtimes exist when the app is built.
  const runtime = props.runtime ?? newestNodeRuntime();
  checkConsumerRuntime(runtime);
  if (props.managedInstances) checkManagedInstances(props.managedInstances, memorySize, runtime.name);
  const role = addRole(scope);
  const fn = new NodejsFunction(scope, 'Function', {
    entry: props.entry,
    handler: props.handler ?? 'handler',
    runtime,
    architecture: Architecture.ARM_64,
    timeout: props.timeout ?? CONSUMER_DEFAULTS.timeout,
    memorySize,
    role,
    logGroup: addLogGroup(scope, role),
    environment: consumerEnvironment(props, wiring),
    bundling: { ...CONSUMER_BUNDLING, target: esbuildTargetOf(runtime) },
  });
  if (props.managedInstances) placeOnCapacityProvider(fn, props.managedInstances);
  declineControlTowerRule(fn, ControlTowerRule.LAMBDA_IN_VPC, props.managedInstances ? MANAGED_INSTANCES_VPC_REASON : NO_VPC_REASON);
  wiring.deadLetterQueue.grantSendMessages(fn);
  grantTables(fn, consumerTables(props));
  return fn;
}

/** `tables`, with the `idempotency` prop's table among them under `IDEMPOTENCY_TABLE`. */
function consumerTables(props: ConsumerProps): Readonly<Record<string, TableGrant>> {
  const tables = props.tables ?? {};
  return props.idempotency ? { ...tables, ...idempotencyTableGrant(props.idempotency, tables) } : tables;
}

/**
 * An execution role with no managed policy: `AWSLambdaBasicExecutionRole` would allow writing to
 * any log group, where this function needs only its own.
 */
function addRole(scope: Construct): Role {
  return new Role(scope, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
}

function addLogGroup(scope: Construct, writer: Role): LogGroup {
  const logGroup = new LogGroup(scope, 'LogGroup', { retention: CONSUMER_DEFAULTS.logRetention });
  logGroup.grantWrite(writer);
  declineControlTowerRule(logGroup, ControlTowerRule.LOG_GROUP_ENCRYPTED, LOG_GROUP_KEY_REASON);
  return logGroup;
}

/** The function's environment: what the runtime needs to know about its infrastructure. */
function consumerEnvironment(props: ConsumerProps, wiring: ConsumerFunctionWiring): Record<string, string> {
  const tableNames = Object.entries(consumerTables(props)).map(([name, grant]) => [name, tableAccessOf(grant).table.tableName]);
  return {
    ...props.environment,
    ...Object.fromEntries(tableNames),
    ...wiring.sourceEnvironment,
    [CONSUMER_ENV.consumerName]: props.consumerName,
    // Set from generation 2 only: a consumer that never had another generation keeps its template.
    ...(generationOf(props) > 1 && { [CONSUMER_ENV.generation]: String(generationOf(props)) }),
    [CONSUMER_ENV.dlqUrl]: wiring.deadLetterQueue.queueUrl,
    // Rounded up: a TTL a fraction of a second short of the validated window is still too short.
    [CONSUMER_ENV.dedupTtlSeconds]: String(Math.ceil(wiring.dedupTtl.toMilliseconds() / 1000)),
    [CONSUMER_ENV.serviceName]: serviceNameOf(props),
    [CONSUMER_ENV.metricsNamespace]: METRICS_NAMESPACE,
    [CONSUMER_ENV.nodeOptions]: '--enable-source-maps',
  };
}

function grantTables(fn: NodejsFunction, tables: Readonly<Record<string, TableGrant>>): void {
  for (const grant of Object.values(tables)) grantTable(fn, tableAccessOf(grant));
}

/** The KMS actions that `grantReadData` and `grantWriteData` of aws-cdk-lib give on a table's key. */
const TABLE_KEY_ACTIONS = {
  read: ['kms:Decrypt', 'kms:DescribeKey'],
  write: ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'],
} as const;

const WRITE_ACTIONS: ReadonlySet<string> = new Set([
  TableAction.PUT_ITEM,
  TableAction.UPDATE_ITEM,
  TableAction.DELETE_ITEM,
  TableAction.BATCH_WRITE_ITEM,
]);

/**
 * Exactly the listed actions on the table. `table.grant` leaves a customer-managed key to the
 * caller: the key's grant follows aws-cdk-lib's own data grants, decrypt for reads, and encrypt
 * too once an action writes.
 */
function grantTable(fn: NodejsFunction, access: TableAccess): void {
  access.table.grant(fn, ...new Set(access.actions));
  const writes = access.actions.some((action) => WRITE_ACTIONS.has(action));
  const keyActions = writes ? [...TABLE_KEY_ACTIONS.read, ...TABLE_KEY_ACTIONS.write] : TABLE_KEY_ACTIONS.read;
  access.table.encryptionKey?.grant(fn, ...keyActions);
}
