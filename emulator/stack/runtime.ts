/**
 * The synthesized stack running on local engines: engines started, resources provisioned from the
 * template, the bundled functions loaded, event source mappings and alarms emulated. Used by
 * the demo and by `eo local up`.
 */
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { AlarmEvaluator } from '../alarms';
import { destroyClients, endpointEnv, lambdaClient, LOCAL_CREDENTIALS, LOCAL_REGION, localClients, requireEndpoints, sqsClient, startEngines, type EngineEndpoints, type Engines, type LocalClients, type LocalEndpoints } from '../engines';
import { LatencyModel, type ContractGateways, type ContractStats, type DataApiGateway, type LocalDataApiServiceOptions, type LatencyProfileLabel, type RefusalListener, type ServedFunction, type StatementFailureBehaviour } from '../gateway';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '../faults/dynamodb-proxy';
import { seededRandom } from '../faults/random';
import { DROP_OUTPUT, InitFailureSignal, nodeSourceText, type InitFailureListener, type LocalFunction, type OutputSink } from '../functions';
import { emfRecorder, MetricStore } from '../metrics';
import type { DeliveryFaults, Invoker } from '../types';
import { alarmSpecs, type AlarmSpecs } from './alarms';
import { assertBundled, ensureSynthesized, type SynthesizedStack } from './cloud-assembly';
import { credentialsEnvironment, enforceTemplateIam, mappingClients, startStackGateways } from './contract';
import { drainStack, type StackDrainOptions } from './drain';
import { functionSpecs, startFunctions, type FunctionSpec, type FunctionsNode } from './functions';
import { localMetrics } from './local-metrics';
import { createMappings, type MappingOverrides, type MappingSpec } from './mappings';
import { deadLetterQueues, resolveOutputs, type DeadLetterQueue } from './outputs';
import { wireFanOut, type FanOut } from './fan-out';
import { provision, type ProvisionedStack } from './provision';
import { runProvisionCalls, sqlClusters, startSqlDatabase, type AwsCallsRun } from './sql-clusters';
import type { StackDatabase } from './sql-database';
import { startSchedules, type LocalSchedules } from './sql-schedules';
import { localTransactionIdleMs } from './function-timeout';
import type { PostgresConnection } from '../engines/postgres';
import type { DataApiClusterSettings } from '../gateway/data-api-gateway';
import { mappingEnabled, ResourceType, resourcesOfType, type Template } from '../../aws/cloudformation/template';

/** Local mode compresses time: one template minute of visibility timeout or alarm period is a local second. */
export const DEFAULT_TIME_SCALE = 1 / 60;

export interface LocalStackOptions {
  /** Seeds the fault proxy's decisions and the latency profile's draws. */
  readonly seed?: number;
  /** The latency every request through the contract layer waits. @default - none */
  readonly latency?: LatencyProfileLabel;
  readonly faults?: DeliveryFaults;
  /** Share of DynamoDB data calls from the functions answered with a throttle. @default 0 */
  readonly throttleRate?: number;
  /** Share answered with a 500. @default 0 */
  readonly serverErrorRate?: number;
  /** Share of the Data API statements run in a transaction that fail with a serialization failure (40001), raised in that transaction. @default 0 */
  readonly serializationFailureRate?: number;
  /**
   * What a failed Data API statement does to its transaction: `abort-transaction`, as the Data
   * API's troubleshooting page describes it (the next call on it is refused), or
   * `keep-transaction`, PostgreSQL's own (a savepoint rolls back the statement alone).
   * @default DEFAULT_STATEMENT_FAILURE_BEHAVIOUR ('abort-transaction')
   */
  readonly dataApiStatementFailures?: StatementFailureBehaviour;
  /** @default DEFAULT_TIME_SCALE */
  readonly timeScale?: number;
  /** Which Node.js runs the functions (docs/local-mode.md, "Node.js as Lambda runs it"). @default EO_FUNCTIONS_NODE's value, else 'runtime' */
  readonly functionsNode?: FunctionsNode;
  /** Concurrent executions per function. @default 2 */
  readonly concurrency?: number;
  /** Where the functions' stdout and stderr go. @default dropped */
  readonly output?: OutputSink;
  /**
   * Told of every function init that fails (after its JSON line went to `output`); the stack's
   * `initFailures` signal fires on the first one either way.
   * @default - only the log line and the signal
   */
  readonly onInitFailure?: InitFailureListener;
  /** Wraps each function's invoker as its callers see it (the mappings, the Lambda API), e.g. to count deliveries. */
  readonly wrapInvoker?: (functionLogicalId: string, invoke: Invoker) => Invoker;
  /** Engines already running (shared by several copies of the stack); they are left running on stop. @default - started here */
  readonly engines?: Engines;
  /** An already loaded assembly, to skip the staleness check (it must still be bundled). @default - synthesized when stale or not bundled */
  readonly synthesized?: SynthesizedStack;
  /** Appended to every physical name (see {@link ProvisionOptions.nameSuffix}). @default '' */
  readonly nameSuffix?: string;
  /** Replaces some of the template's mapping settings. @default - the template's */
  readonly mappingOverrides?: MappingOverrides;
  /** SQS pollers per mapping. @default 2 */
  readonly sqsConcurrency?: number;
  /** Synthesize even when cdk.out looks current. @default false */
  readonly forceSynth?: boolean;
  readonly onPhase?: (phase: string) => void;
  /** Told of every request the contract layer refuses, in one line (IAM denials, invalid requests, conflicts). @default - nothing */
  readonly onRefusal?: RefusalListener;
}

export interface LocalStack {
  readonly stackName: string;
  readonly template: Template;
  readonly outputs: Record<string, string>;
  readonly resources: ProvisionedStack;
  readonly clients: LocalClients;
  readonly dynamodbStreams: DynamoDBStreamsClient;
  /** A client of the stack's Lambda Invoke API, signed as the local account. */
  readonly lambda: LambdaClient;
  /**
   * The contract layer's gateways in front of the engines, and `lambda`, its Invoke API in front of
   * the functions: what every client of the stack talks to.
   */
  readonly endpoints: Required<LocalEndpoints>;
  readonly functions: ReadonlyMap<string, LocalFunction>;
  /** What each function was started with (its resolved environment included), by logical id. */
  readonly functionSpecs: ReadonlyMap<string, FunctionSpec>;
  /** The Node.js version the functions of each runtime run on, e.g. `nodejs24.x` -> `24.22.3`. */
  readonly functionNodes: ReadonlyMap<string, string>;
  readonly mappings: readonly MappingSpec[];
  readonly alarms: AlarmSpecs;
  readonly alarmEvaluator: AlarmEvaluator;
  /** Every metric local mode recorded: the functions' EMF lines, and what the alarm evaluator sampled (local-metrics.ts). */
  readonly metrics: MetricStore;
  /** The local length of a 60-second alarm period. */
  readonly alarmPeriodMs: number;
  readonly deadLetterQueues: readonly DeadLetterQueue[];
  /** The SNS subscriptions made, the EventBridge rule targets, and the deliveries AWS would drop (also told to `onRefusal`). */
  readonly fanOut: FanOut;
  /**
   * The stack's SQL database, when its template has an Aurora PostgreSQL cluster with the Data API
   * on: the one local PostgreSQL every cluster's database lives in, and the Data API gateway's
   * endpoint (the functions' `AWS_ENDPOINT_URL_RDS_DATA`), and the serialization failures it
   * injected (`serializationFailureRate`).
   */
  readonly sql?: { readonly postgres: PostgresConnection; readonly dataApiEndpoint: string; readonly clusters: readonly DataApiClusterSettings[]; serializationFailuresInjected(): number };
  /** The template's `AwsCustomResource` calls: those run at provision (the Data API's statements) and those not, with why. */
  readonly awsCalls: AwsCallsRun;
  /** The template's EventBridge Scheduler schedules: those running (the Data API's `executeStatement` target) and those not, with why. */
  readonly schedules: Omit<LocalSchedules, 'stop'>;
  readonly proxy: DynamoFaultProxy;
  /** What the contract layer checked and refused so far. */
  contract(): ContractStats;
  /** Whether this start ran `cdk synth`. */
  readonly synthesized: boolean;
  /** Fires at the first function that fails to initialize: a run should stop on it rather than retry in silence. */
  readonly initFailures: InitFailureSignal;
  /**
   * Waits until every mapping is idle and every source queue is empty, for as long as work
   * progresses. @throws DrainStalledError naming what did not drain
   */
  drain(options: StackDrainOptions): Promise<void>;
  stop(): Promise<void>;
}

/** Starts everything; on a failure part way, stops what it started before rethrowing. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const phase = options.onPhase ?? (() => undefined);
  phase('loading the synthesized CDK app (cdk.out)');
  const synth = options.synthesized ? assertBundled(options.synthesized) : await ensureSynthesized({ force: options.forceSynth, onSynthesize: (reason) => phase(`synthesizing the CDK app: ${reason}`) });
  phase('starting DynamoDB Local, fauxqs and kinesalite');
  const engines = options.engines ?? (await startEngines());
  const stoppers: (() => Promise<void>)[] = options.engines ? [] : [() => engines.stop()];
  try {
    return await assemble(synth, engines, stoppers, options, phase);
  } catch (error) {
    await stopAll(stoppers);
    throw error;
  }
}

async function assemble(synth: SynthesizedStack, engines: Engines, stoppers: (() => Promise<void>)[], options: LocalStackOptions, phase: (phase: string) => void): Promise<LocalStack> {
  const engineEndpoints = requireEndpoints(engines.endpoints);
  const database = await startDatabase(synth, stoppers, options, phase);
  const { gateways, proxy } = await startContract(engineEndpoints, stoppers, options, database);
  const endpoints = gateways.endpoints;
  const clients = localClients(endpoints);
  const dynamodbStreams = new DynamoDBStreamsClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: endpoints.dynamodb });
  const lambda = lambdaClient(endpoints.lambda);
  stoppers.unshift(async () => {
    destroyClients(clients);
    dynamodbStreams.destroy();
    lambda.destroy();
  });
  const timeScale = options.timeScale ?? DEFAULT_TIME_SCALE;
  phase('creating the template\'s queues, tables, streams and topics');
  const resources = await provision({ stackName: synth.stackName, template: synth.template, clients, timeScale, nameSuffix: options.nameSuffix });
  phase('loading the bundled functions from cdk.out');
  const dataApiEnv: Record<string, string> = gateways.dataApi ? { AWS_ENDPOINT_URL_RDS_DATA: gateways.dataApi.endpoint } : {};
  const specs = functionSpecs({ template: synth.template, outDir: synth.outDir, stack: resources, timeScale, extraEnvironment: { ...endpointEnv(endpoints), ...dataApiEnv, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } }).map(signedAsItself);
  const { policies, resolve, serviceCredentials } = enforceTemplateIam(gateways, synth.template, resources, specs);
  // After IAM is on: the migration calls as its provider function's role, which may lack a grant as on AWS.
  const awsCalls = await runProvisionCalls(synth.template, resources.context, gateways.dataApi, (logicalId) => serviceCredentials.get(logicalId));
  for (const call of awsCalls.skipped) phase(`not run locally: ${call.logicalId} (Custom::AWS): ${call.reason}`);
  const fanOut = await wireFanOut({ template: synth.template, queues: resources.queues, policies, resolve, clients });
  for (const refusal of fanOut.refused) options.onRefusal?.(refusal.reason, 'iam');
  const initFailures = new InitFailureSignal();
  const store = new MetricStore();
  const functionNodes = new Map<string, string>();
  const functions = await startFunctions(specs, { concurrency: options.concurrency ?? 2, output: emfRecorder(store, options.output ?? DROP_OUTPUT), onInitFailure: reportingTo(initFailures, options), functionsNode: options.functionsNode,
    onNode: (runtime, node) => {
      functionNodes.set(runtime, node.version);
      phase(`${runtime} functions run on Node.js ${node.version} (${nodeSourceText(node)})`);
    },
    onDownload: (runtime, version) => phase(`fetching Node.js ${version} for the ${runtime} functions (once per machine)`),
  });
  stoppers.unshift(() => Promise.all([...functions.values()].map((fn) => fn.stop())).then(() => undefined));
  gateways.lambda.serve(servedFunctions(specs, functions, options.wrapInvoker));
  const clientsFor = (functionLogicalId: string) => mappingClients(gateways, functionLogicalId);
  const mappings = createMappings({ template: synth.template, stack: resources, functions, clients, dynamodbStreams, clientsFor, policies, ruleTargets: fanOut.ruleTargets, faults: options.faults, wrapInvoker: options.wrapInvoker, overrides: options.mappingOverrides, sqsConcurrency: options.sqsConcurrency, log: () => undefined });
  const fauxqs = sqsClient(engineEndpoints.sqs);
  stoppers.unshift(async () => fauxqs.destroy());
  const disabledMappings = resourcesOfType(synth.template, ResourceType.EVENT_SOURCE_MAPPING).filter((mapping) => !mappingEnabled(mapping.properties)).map((mapping) => mapping.logicalId);
  const measured = localMetrics({ stack: resources, functions, functionSpecs: specs, mappings, disabledMappings, store, sqs: clients.sqs, fauxqs, timeScale });
  const alarms = alarmSpecs(synth.template, resources, measured.measurability);
  const periodMs = Math.max(250, Math.round(60_000 * timeScale));
  const alarmEvaluator = new AlarmEvaluator({ alarms: alarms.evaluated, metrics: measured.sampler, sns: clients.sns, sampleIntervalMs: Math.max(100, Math.round(periodMs / 4)), periodMs });
  phase('starting event source mappings, schedules and alarms');
  for (const spec of mappings) spec.mapping.start();
  const schedules = startSchedules({ template: synth.template, context: resources.context, timeScale, dataApiEndpoint: gateways.dataApi?.endpoint, sqs: clients.sqs, queues: resources.queues, credentialsOf: (logicalId) => serviceCredentials.get(logicalId) });
  stoppers.unshift(() => schedules.stop());
  for (const schedule of schedules.skipped) phase(`not run locally: ${schedule.logicalId} (AWS::Scheduler::Schedule): ${schedule.reason}`);
  alarmEvaluator.start();
  stoppers.unshift(() => alarmEvaluator.stop(), () => Promise.all(mappings.map((spec) => spec.mapping.stop())).then(() => undefined));
  const drainTargets = { mappings, queues: resources.queues, functions: specs, sqs: clients.sqs };
  return {
    stackName: synth.stackName,
    template: synth.template,
    outputs: resolveOutputs(synth.template, resources),
    resources,
    clients,
    dynamodbStreams,
    lambda,
    endpoints,
    functions,
    functionSpecs: new Map(specs.map((spec) => [spec.logicalId, spec])),
    functionNodes,
    mappings,
    alarms,
    alarmEvaluator,
    metrics: store,
    alarmPeriodMs: periodMs,
    deadLetterQueues: deadLetterQueues(synth.template, resources),
    fanOut,
    ...(database && gateways.dataApi && { sql: sqlOf(database, gateways.dataApi) }),
    awsCalls,
    schedules: { running: schedules.running, skipped: schedules.skipped },
    proxy,
    contract: () => gateways.layer.stats(),
    synthesized: 'synthesized' in synth && synth.synthesized === true,
    initFailures,
    drain: (drainOptions) => drainStack(drainTargets, drainOptions),
    stop: () => stopAll(stoppers),
  };
}

/**
 * The fault proxy (DynamoDB throttles and 5xx for the functions' calls) and, in front of the
 * engines, the contract layer's gateways that every client of the stack goes through.
 */
async function startContract(engines: Required<EngineEndpoints>, stoppers: (() => Promise<void>)[], options: LocalStackOptions, database: StackDatabase | undefined): Promise<{ gateways: ContractGateways; proxy: DynamoFaultProxy }> {
  const proxy = await startDynamoFaultProxy({ target: engines.dynamodb, random: seededRandom((options.seed ?? 1) ^ 0x5eed), throttleRate: options.throttleRate ?? 0, serverErrorRate: options.serverErrorRate ?? 0 });
  stoppers.unshift(() => proxy.stop());
  const latency = new LatencyModel(options.latency, { seed: (options.seed ?? 1) ^ 0x1a7e });
  const dataApi = database && { postgres: database.postgres, clusters: database.clusters, service: dataApiServiceOptions(options) };
  const gateways = await startStackGateways(engines, proxy.endpoint, options.onRefusal, latency, dataApi);
  stoppers.unshift(() => gateways.stop());
  return { gateways, proxy };
}

/** The local Data API on the compressed clock, with the serialization failures and the failed statements' behaviour asked for. */
function dataApiServiceOptions(options: LocalStackOptions): LocalDataApiServiceOptions {
  const rate = options.serializationFailureRate ?? 0;
  return {
    transactionIdleMs: localTransactionIdleMs(options.timeScale ?? DEFAULT_TIME_SCALE),
    ...(options.dataApiStatementFailures !== undefined && { statementFailures: options.dataApiStatementFailures }),
    ...(rate > 0 && { serializationFailures: { random: seededRandom((options.seed ?? 1) ^ 0x5e41), rate } }),
  };
}

function sqlOf(database: StackDatabase, dataApi: DataApiGateway): NonNullable<LocalStack['sql']> {
  return { postgres: database.postgres, dataApiEndpoint: dataApi.endpoint, clusters: database.clusters, serializationFailuresInjected: () => dataApi.service.serializationFailuresInjected() };
}

/** The stack's PostgreSQL, when its template has a Data API cluster; stopped last, after the gateway in front of it. */
async function startDatabase(synth: SynthesizedStack, stoppers: (() => Promise<void>)[], options: LocalStackOptions, phase: (phase: string) => void): Promise<StackDatabase | undefined> {
  if (sqlClusters(synth.template, synth.stackName).length > 0) phase('starting PostgreSQL for the stack\'s Aurora clusters and their Data API');
  const database = await startSqlDatabase(synth.template, synth.stackName, options.nameSuffix);
  if (database) stoppers.unshift(() => database.stop());
  return database;
}

/** The functions as the Lambda API serves them: by physical name, each through the invoker its mappings use. */
function servedFunctions(specs: readonly FunctionSpec[], functions: ReadonlyMap<string, LocalFunction>, wrap: LocalStackOptions['wrapInvoker']): ServedFunction[] {
  return specs.flatMap((spec) => {
    const fn = functions.get(spec.logicalId);
    return fn ? [{ name: spec.name, invoke: wrap ? wrap(spec.logicalId, fn.invoke) : fn.invoke }] : [];
  });
}

/** A function's spec with its own credentials in its environment, as Lambda gives it its role's. */
function signedAsItself(spec: FunctionSpec): FunctionSpec {
  return { ...spec, environment: { ...spec.environment, ...credentialsEnvironment(spec.logicalId) } };
}

function reportingTo(initFailures: InitFailureSignal, options: LocalStackOptions): InitFailureListener {
  return (failure) => {
    initFailures.report(failure);
    options.onInitFailure?.(failure);
  };
}

async function stopAll(stoppers: readonly (() => Promise<void>)[]): Promise<void> {
  for (const stop of stoppers) {
    try {
      await stop();
    } catch {
      // Best effort: the next stopper still runs, and the engines' own reaper kills children on exit.
    }
  }
}
