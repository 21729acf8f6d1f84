import { ENGINE_NAMES, requireEndpoints, startEngines, type EngineName } from '../../emulator/engines';
import { nodeBinaryFor } from '../../emulator/functions';
import { startContractGateways } from '../../emulator/gateway';
import { CONSUMER_RUNTIME } from '../../lib/defaults';
import { ENGINES_GLOBAL_KEY, GATEWAYS_GLOBAL_KEY, TEST_ENDPOINT_ENV, TEST_ENGINE_ENDPOINT_ENV, TEST_ENGINES_ENV, TEST_LAMBDA_ENDPOINT_ENV } from './engine-env';

/**
 * Starts the local engines once per `jest` run, and the AWS contract layer's gateways in front of
 * them, and publishes both sets of endpoints in env vars, which the test workers inherit. Tests
 * talk to the gateways (TEST_ENDPOINT_ENV) unless they need an engine alone
 * (TEST_ENGINE_ENDPOINT_ENV). An engine whose engine variable is already set is not started, so
 * tests can run against engines started elsewhere. `EO_TEST_ENGINES=none` starts nothing.
 *
 * The gateways here know no template, so they apply the request rules and the conflict model but
 * no IAM (local stacks started by tests enforce IAM in gateways of their own); any access key is
 * the local account's.
 *
 * It also finds the Node.js the functions run on (fetched once per machine), so that no test pays
 * for the fetch and the test workers do not fetch it side by side.
 */
export default async function globalSetup(): Promise<void> {
  await nodeBinaryFor(CONSUMER_RUNTIME.name, { onDownload: (version) => process.stderr.write(`fetching Node.js ${version} for the ${CONSUMER_RUNTIME.name} functions (once per machine)\n`) });
  if (process.env[TEST_ENGINES_ENV] === 'none') return;
  const unset = (name: EngineName): boolean => !process.env[TEST_ENGINE_ENDPOINT_ENV[name]];
  const engines = await startEngines({ dynamodb: unset('dynamodb'), sqs: unset('sqs'), kinesis: unset('kinesis') });
  for (const name of ENGINE_NAMES) {
    const endpoint = engines.endpoints[name];
    if (endpoint !== undefined) process.env[TEST_ENGINE_ENDPOINT_ENV[name]] = endpoint;
  }
  (globalThis as Record<string, unknown>)[ENGINES_GLOBAL_KEY] = engines;
  const raw = requireEndpoints(Object.fromEntries(ENGINE_NAMES.map((name) => [name, process.env[TEST_ENGINE_ENDPOINT_ENV[name]]])));
  const gateways = await startContractGateways({ engines: raw, unknownKeys: 'admin' });
  (globalThis as Record<string, unknown>)[GATEWAYS_GLOBAL_KEY] = gateways;
  for (const name of ENGINE_NAMES) process.env[TEST_ENDPOINT_ENV[name]] = gateways.endpoints[name];
  process.env[TEST_LAMBDA_ENDPOINT_ENV] = gateways.endpoints.lambda;
}
