/** `eo replay` and `eo compare`: a window of a stream consumer's retained records through its own function again, and a rebuilt generation held against the live one. */
export { invokeReplayBatch, REPLAY_CLIENT_CONTEXT_BASE64 } from './invoke-batch';
export type { BatchAnswer } from './invoke-batch';
export { planReplay, ReplayRefusedError, streamKindOf } from './plan';
export type { PlanOptions, ReplayPlan, ReplaySource } from './plan';
export { parentsFirst, runReplay } from './replay';
export type { ReplayOptions, ReplaySummary, ReplayTotals, ShardReplay } from './replay';
export { REPLAY_RETRY_DEFAULTS, ShardRetries } from './retry-policy';
export type { ReplayRetryOptions, RetryDecision } from './retry-policy';
export { parseDuration, parseReplayTime, replayWindow, ReplayWindowError } from './window';
export type { ReplayWindow } from './window';
export { windowRecords } from './window-records';
export { CompareRefusedError, pairGenerations } from './generations';
export type { GenerationPair } from './generations';
export { DEFAULT_MAX_EXAMPLES, diffTables, KeySchemaMismatchError } from './table-diff';
export type { DiffAttribute, DiffExample, TableDiff, TableDiffOptions, TablePair, TableSide } from './table-diff';
