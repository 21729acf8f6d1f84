/**
 * The contract layer in front of all three engines and of Lambda's Invoke API: one gateway per
 * engine (DynamoDB and its streams; SQS and SNS, which fauxqs serves on one port; Kinesis) and one
 * for Lambda, whose functions the stack serves once it has started them, and, when asked, one for
 * the RDS Data API on a local PostgreSQL, sharing one layer, so that its counts, its conflict model
 * and its IAM cover every client.
 */
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import { dynamoDbClient, sqsClient } from '../engines/clients';
import type { EngineEndpoints, LocalEndpoints } from '../engines/types';
import type { RestApi } from './aws-request';
import { ContractLayer, type RefusalListener } from './contract-layer';
import { CallerDirectory } from './credentials';
import type { DataApiGateway, DataApiGatewayOptions } from './data-api-gateway';
import { EngineFacts } from './engine-facts';
import { startGatewayServer, type GatewayEngine, type GatewayServer } from './gateway-server';
import type { LatencyModel } from './latency';
import { LocalLambdaService } from './lambda-service';

export interface ContractGatewaysOptions {
  /** The engines' own endpoints. */
  readonly engines: Required<EngineEndpoints>;
  /** Where the functions' DynamoDB requests go after the layer (the fault proxy). @default engines.dynamodb */
  readonly functionDynamodb?: string;
  /** What a key that is neither the local account's nor a function's is. @default 'refuse' */
  readonly unknownKeys?: 'refuse' | 'admin';
  readonly onRefusal?: RefusalListener;
  /** How long each request waits before its answer. @default - no wait */
  readonly latency?: LatencyModel;
  /**
   * A local RDS Data API on this PostgreSQL, in the same layer as the other gateways (its IAM,
   * its counts). Its module, and `pg` with it, is loaded only when this is given.
   * @default - none: a stack without a database starts what it always did
   */
  readonly dataApi?: Omit<DataApiGatewayOptions, 'layer'>;
}

export interface ContractGateways {
  /** Point every client here instead of at the engines; `lambda` is the Invoke API. */
  readonly endpoints: Required<LocalEndpoints>;
  readonly layer: ContractLayer;
  readonly callers: CallerDirectory;
  /** What the Lambda gateway answers with: it serves no function until the stack hands it its own. */
  readonly lambda: LocalLambdaService;
  /** The local Data API, when `dataApi` was given. */
  readonly dataApi?: DataApiGateway;
  stop(): Promise<void>;
}

/** Starts the four gateways (five with `dataApi`); on a failure part way, stops what it started. */
export async function startContractGateways(options: ContractGatewaysOptions): Promise<ContractGateways> {
  // Clients of the engines themselves: the facts the rules need must not be asked through the layer they serve.
  const factClients = { sqs: sqsClient(options.engines.sqs), dynamodb: dynamoDbClient(options.engines.dynamodb) };
  const callers = new CallerDirectory(options.unknownKeys ?? 'refuse');
  const layer = new ContractLayer({ callers, facts: new EngineFacts(factClients), onRefusal: options.onRefusal, latency: options.latency });
  const lambda = new LocalLambdaService({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  const servers: GatewayServer[] = [];
  let dataApi: DataApiGateway | undefined;
  const stop = async (): Promise<void> => {
    await Promise.all([...servers.map((server) => server.stop()), dataApi?.stop()]);
    factClients.sqs.destroy();
    factClients.dynamodb.destroy();
  };
  try {
    const start = async (engine: GatewayEngine & { readonly rest?: RestApi }) => {
      const server = await startGatewayServer({ layer, ...engine });
      servers.push(server);
      return server.endpoint;
    };
    const endpoints = {
      dynamodb: await start({ engine: options.engines.dynamodb, functionEngine: options.functionDynamodb }),
      // fauxqs serves S3 on its SQS port: requests that are neither SQS's JSON nor SNS's form are S3's.
      sqs: await start({ engine: options.engines.sqs, rest: 's3' }),
      kinesis: await start({ engine: options.engines.kinesis }),
      lambda: await start({ answer: lambda.answer, rest: 'lambda' }),
    };
    if (options.dataApi) {
      const { startDataApiGateway } = await import('./data-api-gateway');
      dataApi = await startDataApiGateway({ ...options.dataApi, layer });
    }
    return { endpoints, layer, callers, lambda, ...(dataApi && { dataApi }), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
