/**
 * The bench's latency gateway in a process of its own (started by `gateway-process.ts`): the
 * contract layer in front of DynamoDB Local, waiting a latency profile on every request. Its CPU
 * work (signatures, checks, forwarding) is then not the measured consumer's, as AWS's work is not
 * a Lambda function's. Arguments: the engine's endpoint, the profile's name, its scale and the
 * seed. Tells its parent `{ endpoint }` once listening; stops on `stop` or when the parent goes.
 */
import { LatencyModel, latencyProfile, startDynamoDbGateway } from '../../emulator/gateway';
import { serveParent } from './child-gateway';

serveParent('bench gateway', async () => {
  const [engine, name, scale, seed] = process.argv.slice(2);
  if (engine === undefined || name === undefined || scale === undefined || seed === undefined) throw new Error('usage: gateway-child <engine endpoint> <profile> <scale> <seed>');
  return startDynamoDbGateway(engine, { latency: new LatencyModel(latencyProfile(name, scale), { seed: Number(seed) }) });
});
