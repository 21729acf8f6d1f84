import { CONSUMER_ENV } from '../../../aws/consumer-env';
import { envelopeFromEnv, type EnvelopeOptions } from '../decoding/envelope-decoders';
import { ConfigurationError } from '../core/errors';

type Env = Readonly<Record<string, string | undefined>>;

/** A required environment variable. @throws ConfigurationError naming it */
export function requireEnv(name: string, env: Env = process.env): string {
  const value = env[name];
  if (!value) throw new ConfigurationError(`environment variable ${name} is required but not set`);
  return value;
}

/** An optional positive integer environment variable. @throws ConfigurationError when it is set but not one */
export function positiveIntEnv(name: string, env: Env = process.env): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new ConfigurationError(`environment variable ${name} must be a positive integer (given "${value}")`);
  return parsed;
}

/** An optional boolean environment variable: `true` or `false`. */
export function booleanEnv(name: string, env: Env = process.env): boolean {
  const value = env[name];
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new ConfigurationError(`environment variable ${name} must be "true" or "false" (given "${value}")`);
}

/** The settings every consumer reads from its environment (set by the CDK constructs). */
export interface ConsumerEnv {
  readonly consumerName: string;
  /** `CONSUMER_GENERATION`: which generation of the consumer this is; 1 when unset. Dedup settings take it as `generation`. */
  readonly generation: number;
  readonly dlqUrl?: string;
  readonly maxAttempts?: number;
  readonly maxReceiveCount?: number;
  readonly dedupTtlSeconds?: number;
  readonly sourceQueueUrl?: string;
  /** The shape events arrive in; undefined: our own envelope. */
  readonly envelope?: EnvelopeOptions;
}

/**
 * Reads `CONSUMER_NAME` (or the given default), `CONSUMER_GENERATION`, `DLQ_URL`, `MAX_ATTEMPTS`, `MAX_RECEIVE_COUNT`, `DEDUP_TTL_SECONDS`,
 * `SOURCE_QUEUE_URL`, `EVENT_ENVELOPE` and `EVENT_ID_PATH`.
 */
export function consumerEnv(defaultName: string, env: Env = process.env): ConsumerEnv {
  return {
    consumerName: env[CONSUMER_ENV.consumerName] || defaultName,
    generation: positiveIntEnv(CONSUMER_ENV.generation, env) ?? 1,
    dlqUrl: env[CONSUMER_ENV.dlqUrl] || undefined,
    maxAttempts: positiveIntEnv(CONSUMER_ENV.maxAttempts, env),
    maxReceiveCount: positiveIntEnv(CONSUMER_ENV.maxReceiveCount, env),
    dedupTtlSeconds: positiveIntEnv(CONSUMER_ENV.dedupTtlSeconds, env),
    sourceQueueUrl: env[CONSUMER_ENV.sourceQueueUrl] || undefined,
    envelope: envelopeFromEnv(env),
  };
}
