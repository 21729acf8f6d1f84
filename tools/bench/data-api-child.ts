/**
 * The bench's Data API gateway in a process of its own (started by `gateway-process.ts`): the
 * local RDS Data API (the contract layer in front of a real PostgreSQL), waiting a latency profile
 * on every call. Its CPU work (signatures, checks, the PostgreSQL client) is then not the measured
 * consumer's, as the Data API's fleet is not a Lambda function's. Arguments: the profile's name,
 * its scale and the seed; the PostgreSQL connection as JSON in `EO_BENCH_POSTGRES`. Tells its
 * parent `{ endpoint }` once listening; stops on `stop` or when the parent goes.
 */
import type { PostgresConnection } from '../../emulator/engines/postgres';
import { CallerDirectory, ContractLayer, LatencyModel, latencyProfile } from '../../emulator/gateway';
import { startDataApiGateway } from '../../emulator/gateway/data-api-gateway';
import { EngineFacts } from '../../emulator/gateway/engine-facts';
import { serveParent } from './child-gateway';
import { BENCH_POSTGRES_ENV } from './gateway-process';

serveParent('bench Data API gateway', async () => {
  const [name, scale, seed] = process.argv.slice(2);
  const postgres = process.env[BENCH_POSTGRES_ENV];
  if (name === undefined || scale === undefined || seed === undefined || postgres === undefined) throw new Error(`usage: ${BENCH_POSTGRES_ENV}=<connection JSON> data-api-child <profile> <scale> <seed>`);
  const latency = new LatencyModel(latencyProfile(name, scale), { seed: Number(seed) });
  const layer = new ContractLayer({ callers: new CallerDirectory('admin'), facts: new EngineFacts({}), latency });
  return startDataApiGateway({ postgres: JSON.parse(postgres) as PostgresConnection, layer });
});
