/**
 * The contract layer in front of all three engines: one gateway per engine (DynamoDB and its
 * streams; SQS and SNS, which fauxqs serves on one port; Kinesis), sharing one layer, so that its
 * counts, its conflict model and its IAM cover every client.
 */
import { dynamoDbClient, sqsClient } from '../engines/clients';
import type { EngineEndpoints } from '../engines/types';
import { ContractLayer, type RefusalListener } from './contract-layer';
import { CallerDirectory } from './credentials';
import { EngineFacts } from './engine-facts';
import { startGatewayServer, type GatewayServer } from './gateway-server';

export interface ContractGatewaysOptions {
  /** The engines' own endpoints. */
  readonly engines: Required<EngineEndpoints>;
  /** Where the functions' DynamoDB requests go after the layer (the fault proxy). @default engines.dynamodb */
  readonly functionDynamodb?: string;
  /** What a key that is neither the local account's nor a function's is. @default 'refuse' */
  readonly unknownKeys?: 'refuse' | 'admin';
  readonly onRefusal?: RefusalListener;
}

export interface ContractGateways {
  /** Point every client here instead of at the engines. */
  readonly endpoints: Required<EngineEndpoints>;
  readonly layer: ContractLayer;
  readonly callers: CallerDirectory;
  stop(): Promise<void>;
}

/** Starts the three gateways; on a failure part way, stops what it started. */
export async function startContractGateways(options: ContractGatewaysOptions): Promise<ContractGateways> {
  // Clients of the engines themselves: the facts the rules need must not be asked through the layer they serve.
  const factClients = { sqs: sqsClient(options.engines.sqs), dynamodb: dynamoDbClient(options.engines.dynamodb) };
  const callers = new CallerDirectory(options.unknownKeys ?? 'refuse');
  const layer = new ContractLayer({ callers, facts: new EngineFacts(factClients), onRefusal: options.onRefusal });
  const servers: GatewayServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
    factClients.sqs.destroy();
    factClients.dynamodb.destroy();
  };
  try {
    const start = async (engine: string, functionEngine?: string) => {
      const server = await startGatewayServer({ layer, engine, functionEngine });
      servers.push(server);
      return server.endpoint;
    };
    const endpoints = { dynamodb: await start(options.engines.dynamodb, options.functionDynamodb), sqs: await start(options.engines.sqs), kinesis: await start(options.engines.kinesis) };
    return { endpoints, layer, callers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
