import { startDynamoDbLocal } from './dynamodb-local';
import { startFauxqs } from './fauxqs';
import { startKinesalite } from './kinesalite';
import {
  ENGINE_NAMES,
  type EngineEndpoints,
  type EngineName,
  type Engines,
  type RunningEngine,
  type StartEnginesOptions,
} from './types';

const STARTERS: Readonly<Record<EngineName, () => Promise<RunningEngine>>> = {
  dynamodb: () => startDynamoDbLocal(),
  sqs: startFauxqs,
  kinesis: startKinesalite,
};

/**
 * Starts the local engines in parallel, each in its own child process on a free port. If any
 * fails, the others are stopped before the error is thrown. Children are also killed when this
 * process exits, is interrupted (SIGINT, SIGTERM) or crashes.
 *
 * @example
 * const engines = await startEngines({ kinesis: false });
 * try {
 *   const ddb = dynamoDbClient(engines.endpoints.dynamodb!);
 * } finally {
 *   await engines.stop();
 * }
 */
export async function startEngines(options: StartEnginesOptions = {}): Promise<Engines> {
  const wanted = ENGINE_NAMES.filter((name) => options[name] ?? true);
  const results = await Promise.allSettled(wanted.map((name) => STARTERS[name]()));
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  if (failures.length > 0) {
    await stopAll(started);
    throw failures.length === 1 ? failures[0] : new AggregateError(failures, summarize(failures));
  }
  return enginesOf(started);
}

function enginesOf(started: readonly RunningEngine[]): Engines {
  const endpoints: { -readonly [K in EngineName]?: string } = {};
  for (const engine of started) endpoints[engine.name] = engine.endpoint;
  let stopping: Promise<void> | undefined;
  return { endpoints: endpoints satisfies EngineEndpoints, stop: () => (stopping ??= stopAll(started)) };
}

async function stopAll(engines: readonly RunningEngine[]): Promise<void> {
  await Promise.all(engines.map((engine) => engine.stop()));
}

function summarize(failures: readonly unknown[]): string {
  const messages = failures.map((failure) => (failure instanceof Error ? failure.message : String(failure)));
  return `${failures.length} engines failed to start:\n${messages.join('\n\n')}`;
}
