import { ENGINE_NAMES, startEngines, type EngineName } from '../../local/engines';
import { ENGINES_GLOBAL_KEY, TEST_ENDPOINT_ENV, TEST_ENGINES_ENV } from './engine-env';

/**
 * Starts the local engines once per `jest` run and publishes their endpoints in env vars, which
 * the test workers inherit. An engine whose endpoint variable is already set is not started, so
 * tests can run against engines started elsewhere (e.g. by the local demo).
 * `EO_TEST_ENGINES=none` starts nothing.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env[TEST_ENGINES_ENV] === 'none') return;
  const unset = (name: EngineName): boolean => !process.env[TEST_ENDPOINT_ENV[name]];
  const engines = await startEngines({
    dynamodb: unset('dynamodb'),
    sqs: unset('sqs'),
    kinesis: unset('kinesis'),
  });
  for (const name of ENGINE_NAMES) {
    const endpoint = engines.endpoints[name];
    if (endpoint !== undefined) process.env[TEST_ENDPOINT_ENV[name]] = endpoint;
  }
  (globalThis as Record<string, unknown>)[ENGINES_GLOBAL_KEY] = engines;
}
