/**
 * DLQ operations for the stack, on AWS or on the local engines: list, inspect, redrive. What this
 * file does not name is internal.
 */
export { listDlqs, LIST_DEFAULTS } from './list';
export type { DlqListing, ListOptions } from './list';
export { inspectQueue, groupEntries } from './inspect';
export type { FailureExample, FailureGroup, InspectOptions, Inspection, RangeReport } from './inspect';
export { ARRIVED_DURING_REDRIVE, NOT_SELECTED, redriveQueue } from './redrive';
export type { RedriveDetail, RedriveOptions, RedriveRequest, RedriveResult, RedriveStatus } from './redrive';
export { BARE_ERROR_TYPE, EntryKind, entryOf } from './entry';
export type { DlqEntry } from './entry';
export { FILTER_KEYS, describeFilter, matches, parseFilter } from './filter';
export type { EntryFilter, FilterKey } from './filter';
export { REDRIVE_MARKER_ATTRIBUTE } from './table-reemit';
export { RANGE_READ_DEFAULTS, readRange } from './stream-range';
export type { RangeRead } from './stream-range';
export { SWEEP_DEFAULTS, peekQueue } from './sweep';
export type { SweepOptions } from './sweep';
export { findDlq, topologyOfLocalStack } from './topology';
export { awsClients, awsDlqContext, DEFAULT_STACK_NAME } from './aws-context';
export type { AwsContextOptions } from './aws-context';
export { deployedTopology } from './aws-topology';
export type { DeployedStack } from './aws-topology';
export {
  DEFAULT_STATE_FILE,
  dlqContextOfLocalStack,
  localDlqClients,
  localDlqContext,
  localStateOf,
  readLocalState,
  removeLocalState,
  writeLocalState,
} from './local-state';
export type { LocalStateFile } from './local-state';
export {
  DlqOperationError,
  InvalidOptionError,
  LocalStackNotRunningError,
  MalformedEntryError,
  MissingCredentialsError,
  StackNotFoundError,
  UnknownQueueError,
} from './errors';
export type { DlqClients, DlqContext, DlqInfo, DlqRole, DlqSource, QueueRef, StackTopology, StreamRef, TableRef } from './types';
