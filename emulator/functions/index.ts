export { LocalFunction, LOCAL_FUNCTION_DEFAULTS } from './local-function';
export type { LocalFunctionConfig, LocalFunctionStats } from './local-function';
export { INIT_TIMEOUT_MS, WORKER_FILE } from './execution-environment';
export { WORKER_NODE_OPTIONS, lambdaEnvironment, logStreamName } from './environment';
export { DROP_OUTPUT, fileOutput } from './output';
export type { FileOutput, OutputSink, OutputSource } from './output';
export { FunctionInitError, InitFailureSignal, initFailureLogLine, initFailureSummary } from './init-failure';
export type { InitFailure, InitFailureListener } from './init-failure';
