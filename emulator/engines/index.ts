export { startEngines } from './engines';
export { startDynamoDbLocal, DYNAMODB_DEADLINE_MS, DYNAMODB_PORT_ATTEMPTS } from './dynamodb-local';
export { startFauxqs } from './fauxqs';
export { startKinesalite, SHARD_LIMIT, STREAM_TRANSITION_MS } from './kinesalite';
export { LAUNCHER_DEADLINE_MS } from './launcher';
export {
  destroyClients,
  dynamoDbClient,
  endpointEnv,
  kinesisClient,
  lambdaClient,
  localClients,
  requireEndpoints,
  s3Client,
  snsClient,
  sqsClient,
} from './clients';
export { LOCAL_ACCOUNT_ID, LOCAL_CREDENTIALS, LOCAL_REGION } from './account';
export { freePort, localEndpoint, LOCAL_HOST } from './ports';
export { EngineError, EngineStartError, JavaNotFoundError, PortInUseError, type EngineKind } from './errors';
export { ENGINE_NAMES } from './types';
export type { ClientCredentials, LocalClients } from './clients';
export type { DynamoDbLocalOptions } from './dynamodb-local';
export type { EngineEndpoints, EngineName, Engines, LocalEndpoints, RunningEngine, StartEnginesOptions } from './types';
