/**
 * The AWS contract layer's gateways: HTTP proxies in front of the local engines, and Lambda's
 * Invoke API in front of the local functions, that refuse what AWS refuses (local/contract's
 * rules, DynamoDB's transaction conflicts) and decide each local function's calls against its
 * role (local/iam). Every client of local mode goes through them.
 */
export { startContractGateways } from './contract-gateways';
export { startDynamoDbGateway } from './dynamodb-gateway';
export type { DynamoDbGateway, DynamoDbGatewayOptions } from './dynamodb-gateway';
export { startLambdaGateway } from './lambda-gateway';
export type { LambdaGateway } from './lambda-gateway';
export { ContractLayer } from './contract-layer';
export { CallerDirectory, functionCredentials } from './credentials';
export { IamGuard } from './iam-guard';
export { LocalLambdaService } from './lambda-service';
// startDataApiGateway is left out: its module loads `pg`, an optional peer; import it from ./data-api-gateway.
export { DEFAULT_STATEMENT_FAILURE_BEHAVIOUR, LocalDataApiService, STATEMENT_FAILURE_BEHAVIOURS } from './data-api-service';
export type { DataApiCluster, DataApiConnection, LocalDataApiServiceOptions, StatementFailureBehaviour } from './data-api-service';
export type { DataApiClusterSettings, DataApiGateway, DataApiGatewayOptions } from './data-api-gateway';
export type { ContractGateways, ContractGatewaysOptions } from './contract-gateways';
export type { ContractStats } from './contract-stats';
export type { RefusalKind, RefusalListener } from './contract-layer';
export type { Caller, LocalCredentials } from './credentials';
export type { RequestOrigin, RequestShape, RestApi } from './aws-request';
export { GATEWAY_RULES } from './refusals';
export { LATENCY_DEFAULTS, LATENCY_PROFILE_NAMES, LatencyModel, LatencySettingError, latencyLabel, latencyProfile } from './latency';
export type { LatencyModelOptions, LatencyProfileLabel, LatencyProfileName, LatencyRequest } from './latency';
export { AWS_LATENCY_FIGURES, DATA_API_ASSUMED_CALL, DEFAULT_LATENCY } from './latency-profile';
export type { LatencyFigure, LatencySource } from './latency-profile';
export type { GuardedRequest, IamGuardOptions, IamVerdict, Refusal } from './iam-guard';
export type { ServedFunction } from './lambda-service';
export type { LambdaInvokeRequest } from './lambda-request';
