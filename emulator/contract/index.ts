/**
 * The AWS contract layer's rules: pure functions from a parsed request to "AWS accepts it" or
 * the error AWS returns, and a stateful model of DynamoDB's transaction conflicts. The proxies in
 * front of the engines apply them; see README.md beside this file.
 */
export { checkRequest, CONTRACT_SERVICES } from './check-request';
export { renderError, CONTRACT_RULE_HEADER, WIRE_PROTOCOLS } from './render';
export { dataApiTargetOf, LAMBDA_INVOKE_TARGET, lambdaInvokeFunctionName, targetOfHeader, targetOfSnsForm } from './targets';
export { checkInvoke, decodeClientContext, lambdaError, LAMBDA_RULES } from './lambda-invoke';
export { snsPublishFromForm } from './sns-query';
export { splitSqsBatch, mergeFailedEntries } from './batch-entries';
export { isSqsBatchOperation, SQS_BATCH_OPERATIONS } from './sqs-batch';
export { TransactionConflictTracker } from './transaction-conflicts';
export { VisibilityBudget, VISIBILITY_BUDGET_DEFAULTS } from './sqs-visibility-budget';
export { itemIdentity, canonicalNumber } from './dynamodb-keys';
export { sqsMessageBytes } from './sqs-message';
export { snsMessageBytes } from './sns-publish';
export { DYNAMODB_LIMITS, KINESIS_LIMITS, LAMBDA_LIMITS, SNS_LIMITS, SQS_LIMITS } from '../../aws/limits';
export { CONTRACT_RULES } from './rules';
export type { AwsError, AwsFault, CheckResult } from './aws-error';
export type { ContractService, RequestInput } from './check-request';
export type { LambdaInvokeInput } from './lambda-invoke';
export type { RenderedError, WireProtocol } from './render';
export type { RequestTarget } from './targets';
export type { SplitBatch, SqsFailedEntry } from './batch-entries';
export type { SqsBatchOperation } from './sqs-batch';
export type { VisibilityBudgetOptions } from './sqs-visibility-budget';
export type { ConflictDecision, ConflictStats, ConflictTicket, ConflictTrackerOptions } from './transaction-conflicts';
export type { DynamoDbFacts, KinesisFacts, RequestFacts, SnsFacts, SqsFacts } from './facts';
