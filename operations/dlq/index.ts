/**
 * DLQ operations for the stack, on AWS or on the local engines: list, inspect, redrive. What this
 * file does not name is internal.
 */
export { listDlqs, LIST_DEFAULTS } from './list';
export type { DlqListing, ListOptions } from './list';
export { inspectQueue, groupEntries } from './inspect';
export type { FailureExample, FailureGroup, InspectOptions, Inspection, RangeReport } from './inspect';
export { findApplied } from './applied-events';
export type { AppliedCheck, AppliedEvent } from './applied-events';
export { ARRIVED_DURING_REDRIVE, NOT_SELECTED, redriveQueue } from './redrive';
export type { RedriveDetail, RedriveOptions, RedriveRequest, RedriveResult, RedriveStatus } from './redrive';
export { BARE_ERROR_TYPE, EntryKind, entryOf, MALFORMED_POINTER_ERROR_TYPE, MALFORMED_WRAPPER_ERROR_TYPE } from './entry';
export type { DlqEntry } from './entry';
export { FILTER_KEYS, describeFilter, matches, parseFilter } from './filter';
export type { EntryFilter, FilterKey } from './filter';
export { RANGE_READ_DEFAULTS, readRange } from './stream-range';
export type { RangeRead, RangeReadOptions } from './stream-range';
export { kinesisRangeReader } from './kinesis-range-reader';
export type { LaggingStreamRead } from './kinesis-range-reader';
export { SWEEP_DEFAULTS, peekQueue } from './sweep';
export type { SweepOptions } from './sweep';
export { findDlq } from './topology';
export { operatorPolicy } from './operator-policy';
export type { PolicyDocument, PolicyStatement } from './operator-policy';
export { DEFAULT_STACK_NAME, DEFAULT_STATE_FILE } from './defaults';
export { awsClients, awsDlqContext } from './aws-context';
export type { AwsContextOptions, AwsDlqContext } from './aws-context';
export { readDeployedStack } from './aws-resources';
export { deployedTopology } from './aws-topology';
export type { DeployedQueue, DeployedStack, DeployedStream, DeployedTable } from './aws-topology';
export { cloudFormationClient, destroyDlqClients, dlqClients } from './clients';
export type { DlqClientOptions, StaticCredentials } from './clients';
export { configuredEndpoint, configuredEndpoints, DlqService } from './endpoints';
export type { Env, ServiceEndpoints } from './endpoints';
export { urlSuffixOf } from '../../aws/partitions';
export { localDlqClients, localDlqContext, readLocalState, removeLocalState, writeLocalState } from './local-state';
export type { LocalSqlState, LocalStateFile } from './local-state';
export {
  DlqOperationError,
  InvalidOptionError,
  LocalStackNotRunningError,
  MalformedEntryError,
  MissingCredentialsError,
  NOT_A_SOURCE,
  PermissionDeniedError,
  StackNotFoundError,
  TargetNotASourceError,
  UnknownQueueError,
} from './errors';
export type { IamPermission } from './errors';
export { sourceTarget, TargetKind } from './redrive-targets';
export type { KinesisTarget, QueueTarget, RedriveTarget, TableStreamTarget } from './redrive-targets';
export type { ConsumerFunction, ConsumerWindow, DlqClients, DlqContext, DlqInfo, DlqRole, DlqSource, QueueRef, SqlDedupStore, StackTopology, StreamRef, TableRef } from './types';
