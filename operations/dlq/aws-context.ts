/**
 * The DLQ operations against AWS: credentials and region from the environment (the SDK's default
 * chain: AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, SSO, instance roles), endpoints
 * from `AWS_ENDPOINT_URL_<SERVICE>` / `AWS_ENDPOINT_URL` when set (endpoints.ts), the stack's
 * resources from CloudFormation (aws-resources.ts).
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { readDeployedStack } from './aws-resources';
import { deployedTopology } from './aws-topology';
import { cloudFormationClient, destroyDlqClients, dlqClients } from './clients';
import { DEFAULT_STACK_NAME } from './defaults';
import { configuredEndpoints, type Env, type ServiceEndpoints } from './endpoints';
import { DlqOperationError, MissingCredentialsError, StackNotFoundError } from './errors';
import type { DlqClients, DlqContext } from './types';

export interface AwsContextOptions {
  /** @default 'EffectivelyOnce' */
  readonly stackName?: string;
  /** @default - from the environment (AWS_REGION, the profile's region) */
  readonly region?: string;
  /**
   * Where the `AWS_ENDPOINT_URL*` variables are read from; credentials always come from the SDK's
   * chain, which reads `process.env`.
   * @default process.env
   */
  readonly env?: Env;
}

/** Clients and topology of a deployed stack, and the endpoints the environment points them at. */
export interface AwsDlqContext extends DlqContext {
  /** Empty when every service is AWS's own. */
  readonly endpoints: ServiceEndpoints;
  destroy(): void;
}

/**
 * Clients for AWS and the topology of the deployed stack.
 *
 * @throws MissingCredentialsError when no credentials or region can be found
 * @throws StackNotFoundError when the stack does not exist in the region
 * @throws InvalidOptionError when an `AWS_ENDPOINT_URL*` variable is not a URL
 */
export async function awsDlqContext(options: AwsContextOptions = {}): Promise<AwsDlqContext> {
  const stackName = options.stackName ?? DEFAULT_STACK_NAME;
  const env = options.env ?? process.env;
  const cloudFormation = cloudFormationClient(options.region, env);
  let clients: DlqClients | undefined;
  try {
    const region = await regionOf(cloudFormation);
    clients = awsClients(region, env);
    const topology = deployedTopology(await readDeployedStack(cloudFormation, clients, stackName, region));
    const ready = clients;
    return { clients: ready, topology, endpoints: configuredEndpoints(env), destroy: () => destroyDlqClients(ready) };
  } catch (error) {
    if (clients) destroyDlqClients(clients);
    throw explain(error, stackName, clients?.region);
  } finally {
    cloudFormation.destroy();
  }
}

async function regionOf(client: CloudFormationClient): Promise<string> {
  try {
    return await client.config.region();
  } catch (error) {
    throw new MissingCredentialsError('no AWS region is set', { cause: error });
  }
}

/** One client per service, from the environment's credentials and endpoints. */
export function awsClients(region: string, env: Env = process.env): DlqClients {
  return dlqClients({ region, endpoints: configuredEndpoints(env) });
}

/** Turns the SDK's errors for a missing setup into ones that say what to do. */
function explain(error: unknown, stackName: string, region = 'the configured region'): unknown {
  if (error instanceof DlqOperationError) return error;
  const { name = '', message = '' } = (error ?? {}) as { name?: string; message?: string };
  if (name === 'CredentialsProviderError' || /credential/i.test(message)) return new MissingCredentialsError('no AWS credentials were found', { cause: error });
  if (/region is missing/i.test(message)) return new MissingCredentialsError('no AWS region is set', { cause: error });
  if (name === 'ValidationError' && /does not exist/.test(message)) return new StackNotFoundError(stackName, region, { cause: error });
  if (isUnreachable(error)) return new DlqOperationError(`${unreachableHost(error)} could not be reached (${message}): check AWS_REGION, and AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> if you use an emulator or a VPC endpoint`, { cause: error });
  return error;
}

function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'ENOTFOUND' || code === 'ECONNREFUSED' || code === 'EAI_AGAIN';
}

function unreachableHost(error: unknown): string {
  const { hostname, address, port } = error as { hostname?: string; address?: string; port?: number };
  return hostname ?? (address ? `${address}${port ? `:${port}` : ''}` : 'the endpoint');
}
