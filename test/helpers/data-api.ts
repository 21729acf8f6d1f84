/**
 * A real PostgreSQL behind the local Data API gateway for one test file, started before its tests
 * and stopped after them, with a Data API client of one attempt (as `DataApiSession` requires).
 */
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../emulator/engines/account';
import { startPostgres, type RunningPostgres } from '../../emulator/engines/postgres';
import { startDataApiGateway, type DataApiGateway } from '../../emulator/gateway/data-api-gateway';

/** What the file's tests reach: set once its `beforeAll` has run. */
export interface LocalDataApi {
  readonly postgres: RunningPostgres;
  readonly gateway: DataApiGateway;
  readonly client: RDSDataClient;
}

/** Registers the start and stop of the engines; call at the top of a test file, read the result in tests. */
export function localDataApi(): () => LocalDataApi {
  let started: LocalDataApi | undefined;
  beforeAll(async () => {
    const postgres = await startPostgres();
    const gateway = await startDataApiGateway({ postgres: postgres.connection });
    started = { postgres, gateway, client: new RDSDataClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: gateway.endpoint, maxAttempts: 1 }) };
  });
  afterAll(async () => {
    started?.client.destroy();
    await started?.gateway.stop();
    await started?.postgres.stop();
  });
  return () => {
    if (started === undefined) throw new Error('the local Data API is read before its beforeAll ran');
    return started;
  };
}
