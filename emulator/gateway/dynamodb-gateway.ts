/**
 * The contract layer in front of DynamoDB Local alone, for clients that need DynamoDB as AWS
 * behaves under concurrency (transaction conflicts, request rules) and no stack: the benchmark's
 * hot-item scenario, tests. Every key is the local administrator's; no IAM is decided.
 */
import { dynamoDbClient } from '../engines/clients';
import { ContractLayer } from './contract-layer';
import type { ContractStats } from './contract-stats';
import { CallerDirectory } from './credentials';
import { EngineFacts } from './engine-facts';
import { startGatewayServer } from './gateway-server';
import type { LatencyModel } from './latency';

export interface DynamoDbGateway {
  /** Point DynamoDB clients here instead of at the engine. */
  readonly endpoint: string;
  /** What the layer counted since it started (conflicts included). */
  stats(): ContractStats;
  stop(): Promise<void>;
}

export interface DynamoDbGatewayOptions {
  /** How long each request waits before its answer (the bench's `--latency aws`). @default - no wait */
  readonly latency?: LatencyModel;
}

/** Starts a gateway on a free port in front of the DynamoDB engine at `engine`. */
export async function startDynamoDbGateway(engine: string, options: DynamoDbGatewayOptions = {}): Promise<DynamoDbGateway> {
  const factClient = dynamoDbClient(engine);
  const layer = new ContractLayer({ callers: new CallerDirectory('admin'), facts: new EngineFacts({ dynamodb: factClient }), latency: options.latency });
  try {
    const server = await startGatewayServer({ layer, engine });
    return {
      endpoint: server.endpoint,
      stats: () => layer.stats(),
      stop: async () => {
        await server.stop();
        factClient.destroy();
      },
    };
  } catch (error) {
    factClient.destroy();
    throw error;
  }
}
