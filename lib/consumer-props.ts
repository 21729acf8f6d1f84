import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { checkDurationRange, checkIntegerRange, checkPattern } from './validation';

/** What a consumer name must look like: it becomes part of dedup keys and resource names. */
export const CONSUMER_NAME_PATTERN = /^[a-z][a-z0-9-]{1,62}$/;

/** A name Lambda accepts for an environment variable. */
const ENV_VAR_NAME = /^[a-zA-Z][a-zA-Z0-9_]+$/;

/**
 * The environment variables the consumer constructs set on their functions. Props may not set
 * them: the runtime reads them, and each one must agree with the infrastructure it describes.
 */
export const CONSUMER_ENV = {
  /** The consumer's name: the prefix of its dedup keys. */
  consumerName: 'CONSUMER_NAME',
  /** The URL of the consumer's dead-letter queue. */
  dlqUrl: 'DLQ_URL',
  /** The TTL, in seconds, of the dedup records the consumer writes. */
  dedupTtlSeconds: 'DEDUP_TTL_SECONDS',
  /** Powertools' service name (logs, metrics). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** Powertools' metrics namespace. */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Node.js flags: source maps on, so stack excerpts in DLQ messages point at the source. */
  nodeOptions: 'NODE_OPTIONS',
  /** SQS only: the receive count at which the consumer sends a failing message to its DLQ. */
  maxAttempts: 'MAX_ATTEMPTS',
  /** SQS only: the source queue's URL, for `ChangeMessageVisibility`. */
  sourceQueueUrl: 'SOURCE_QUEUE_URL',
} as const;

/** Props that every consumer construct takes. */
export interface ConsumerProps {
  /**
   * The consumer's name. It prefixes the consumer's dedup keys (`<consumerName>#<eventId>`), so
   * renaming a consumer forgets what it has processed. Must match {@link CONSUMER_NAME_PATTERN}.
   */
  readonly consumerName: string;
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
   * The tables the function reads and writes, keyed by the environment variable that receives
   * each table's name. The function gets data read/write access to these tables and no others.
   * @default - no tables
   */
  readonly tables?: Readonly<Record<string, ITable>>;
  /**
   * Further environment variables. They may not set any of {@link CONSUMER_ENV} nor a `tables` key.
   * @default - none
   */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The Powertools service name (`POWERTOOLS_SERVICE_NAME`).
   * @default - the consumer name
   */
  readonly serviceName?: string;
  /**
   * The function's timeout.
   * @default 30 seconds (`CONSUMER_DEFAULTS.timeout`)
   */
  readonly timeout?: Duration;
  /**
   * The function's memory, in MiB.
   * @default 256 (`CONSUMER_DEFAULTS.memorySize`)
   */
  readonly memorySize?: number;
  /**
   * The TTL of the dedup records the handler writes (`DEDUP_TTL_SECONDS`). It must outlive every
   * way an event can come back: source retention + DLQ retention + `redriveAllowance`.
   * @default - exactly that sum, the shortest safe window
   */
  readonly dedupTtl?: Duration;
  /**
   * How long a redrive out of the DLQ may take, on top of the DLQ's retention.
   * @default 1 day (`CONSUMER_DEFAULTS.redriveAllowance`)
   */
  readonly redriveAllowance?: Duration;
}

/** Throws on the first invalid prop shared by every consumer. */
export function validateConsumerProps(props: ConsumerProps): void {
  checkPattern('consumerName', props.consumerName, CONSUMER_NAME_PATTERN);
  checkDurationRange('timeout', props.timeout, Duration.seconds(1), Duration.minutes(15));
  checkIntegerRange('memorySize', props.memorySize, 128, 10_240);
  // No service limits these two; the upper bounds only catch a unit mistake (hours for seconds).
  checkDurationRange('redriveAllowance', props.redriveAllowance, Duration.seconds(0), Duration.days(365));
  checkDurationRange('dedupTtl', props.dedupTtl, Duration.seconds(1), Duration.days(3_650));
  checkEnvironmentNames(props);
}

function checkEnvironmentNames(props: ConsumerProps): void {
  const reserved = new Set<string>(Object.values(CONSUMER_ENV));
  const tableVariables = Object.keys(props.tables ?? {});
  for (const name of tableVariables) {
    checkPattern('tables key', name, ENV_VAR_NAME);
    if (reserved.has(name)) throw new Error(`tables must not use ${name}: the construct sets it`);
  }
  for (const name of Object.keys(props.environment ?? {})) {
    if (reserved.has(name)) throw new Error(`environment must not set ${name}: the construct sets it`);
    if (tableVariables.includes(name)) throw new Error(`environment must not set ${name}: tables sets it`);
  }
}
