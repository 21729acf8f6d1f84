/** `eo replay`: a window of a stream consumer's retained records through its own function again. */
export { invokeReplayBatch, REPLAY_CLIENT_CONTEXT_BASE64 } from './invoke-batch';
export type { BatchAnswer } from './invoke-batch';
export { planReplay, ReplayRefusedError, streamKindOf } from './plan';
export type { PlanOptions, ReplayPlan, ReplaySource } from './plan';
export { parentsFirst, runReplay } from './replay';
export type { ReplayOptions, ReplaySummary, ReplayTotals, ShardReplay } from './replay';
export { parseReplayTime, replayWindow, ReplayWindowError } from './window';
export type { ReplayWindow } from './window';
export { windowRecords } from './window-records';
