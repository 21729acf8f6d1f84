/**
 * Lambda's Invoke API in front of functions given here, without a stack: for tests and tools that
 * need a client to invoke handlers as it would on AWS (the DLQ tooling's stream redrive, say).
 * The contract layer's payload rules apply; every key is the local administrator's, and no IAM is
 * decided. A stack serves its own functions on its own gateways (contract-gateways.ts).
 */
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../engines/account';
import { ContractLayer } from './contract-layer';
import type { ContractStats } from './contract-stats';
import { CallerDirectory } from './credentials';
import { EngineFacts } from './engine-facts';
import { startGatewayServer } from './gateway-server';
import { LocalLambdaService, type ServedFunction } from './lambda-service';

export interface LambdaGateway {
  /** Point Lambda clients here (`AWS_ENDPOINT_URL_LAMBDA`). */
  readonly endpoint: string;
  /** Serves more functions, by name. */
  serve(functions: Iterable<ServedFunction>): void;
  /** What the layer counted since it started. */
  stats(): ContractStats;
  stop(): Promise<void>;
}

/**
 * Starts a gateway on a free port that invokes `functions` by name, in the local region and account.
 * @example
 * const gateway = await startLambdaGateway([{ name: 'notifier', invoke: (event) => fn.invoke(event) }]);
 * await lambdaClient(gateway.endpoint).send(new InvokeCommand({ FunctionName: 'notifier', Payload: '{}' }));
 */
export async function startLambdaGateway(functions: Iterable<ServedFunction> = []): Promise<LambdaGateway> {
  const layer = new ContractLayer({ callers: new CallerDirectory('admin'), facts: new EngineFacts({}) });
  const lambda = new LocalLambdaService({ region: LOCAL_REGION, accountId: LOCAL_ACCOUNT_ID });
  lambda.serve(functions);
  const server = await startGatewayServer({ layer, answer: lambda.answer, rest: 'lambda' });
  return { endpoint: server.endpoint, serve: (more) => lambda.serve(more), stats: () => layer.stats(), stop: () => server.stop() };
}
