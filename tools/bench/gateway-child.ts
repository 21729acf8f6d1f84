/**
 * The bench's latency gateway in a process of its own (started by `gateway-process.ts`): the
 * contract layer in front of DynamoDB Local, waiting a latency profile on every request. Its CPU
 * work (signatures, checks, forwarding) is then not the measured consumer's, as AWS's work is not
 * a Lambda function's. Arguments: the engine's endpoint, the profile's name, its scale and the
 * seed. Tells its parent `{ endpoint }` once listening; stops on `stop` or when the parent goes.
 */
import { LatencyModel, latencyProfile, startDynamoDbGateway } from '../../emulator/gateway';

async function main(): Promise<void> {
  const [engine, name, scale, seed] = process.argv.slice(2);
  if (engine === undefined || name === undefined || scale === undefined || seed === undefined) throw new Error('usage: gateway-child <engine endpoint> <profile> <scale> <seed>');
  const gateway = await startDynamoDbGateway(engine, { latency: new LatencyModel(latencyProfile(name, scale), { seed: Number(seed) }) });
  const stop = (): void => {
    void gateway.stop().finally(() => process.exit(0));
  };
  process.on('message', (message) => {
    if (message === 'stop') stop();
  });
  process.on('disconnect', stop);
  process.send?.({ endpoint: gateway.endpoint });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench gateway: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
