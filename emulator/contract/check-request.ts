/**
 * The contract layer's entry point: the rules of one request, picked by service and operation.
 * An operation without rules passes; so does anything the engine already refuses as AWS does.
 */
import { firstFailure, OK, type CheckResult } from './aws-error';
import { checkItemsGiven, checkOneActionPerItem } from './dynamodb-rules';
import type { RequestFacts } from './facts';
import { checkPutRecord, checkPutRecords } from './kinesis-rules';
import { checkInvoke, type LambdaInvokeInput } from './lambda-invoke';
import { checkSnsPublish, type SnsPublishInput } from './sns-publish';
import { checkSqsBatch, isSqsBatchOperation, type SqsBatchInput } from './sqs-batch';
import { checkSqsMessage, type SqsMessageInput } from './sqs-message';
import { checkQueueAttributeNames, type SqsGetQueueAttributesInput } from './sqs-queue-attributes';
import { checkSqsReceive, checkVisibilityTimeout, type SqsReceiveInput } from './sqs-ranges';

/** The services the contract layer has rules for. */
export const CONTRACT_SERVICES = ['sqs', 'sns', 'dynamodb', 'kinesis', 'lambda'] as const;

export type ContractService = (typeof CONTRACT_SERVICES)[number];

/** A parsed request body: the JSON protocols' object, `snsPublishFromForm`'s for SNS, Lambda's path, headers and payload (`lambdaInvokeOf`). */
export type RequestInput = Readonly<Record<string, unknown>>;

type Rules = Readonly<Record<string, (input: RequestInput, facts: RequestFacts) => CheckResult>>;

const SQS: Rules = {
  SendMessage: (input, facts) => checkSqsMessage(input as SqsMessageInput, facts.sqs),
  ReceiveMessage: (input) => checkSqsReceive(input as SqsReceiveInput),
  ChangeMessageVisibility: (input) => checkVisibilityTimeout((input as SqsReceiveInput).VisibilityTimeout),
  GetQueueAttributes: (input) => checkQueueAttributeNames(input as SqsGetQueueAttributesInput),
};

const RULES: Readonly<Record<ContractService, Rules>> = {
  sqs: SQS,
  sns: { Publish: (input, facts) => checkSnsPublish(input as SnsPublishInput, facts.sns) },
  dynamodb: {
    TransactWriteItems: (input, facts) => firstFailure([() => checkItemsGiven('TransactWriteItems', input), () => checkOneActionPerItem(input, facts.dynamodb?.keySchemas)]),
    TransactGetItems: (input) => checkItemsGiven('TransactGetItems', input),
    BatchWriteItem: (input) => checkItemsGiven('BatchWriteItem', input),
    BatchGetItem: (input) => checkItemsGiven('BatchGetItem', input),
  },
  kinesis: {
    PutRecord: (input, facts) => checkPutRecord(input, facts.kinesis),
    PutRecords: (input, facts) => checkPutRecords(input, facts.kinesis),
  },
  lambda: { Invoke: (input) => checkInvoke(input as LambdaInvokeInput) },
};

/**
 * Whether AWS would accept the request, or the error it would return instead. For the SQS batch
 * operations this is the whole-request verdict; the entries that fail alone come from
 * `splitSqsBatch`.
 *
 * @example
 * const result = checkRequest('sqs', 'SendMessage', JSON.parse(body), { sqs: { maximumMessageSize: 1024 } });
 * if (!result.ok) return send(renderError('json10', result.error));
 */
export function checkRequest(service: ContractService, operation: string, input: RequestInput, facts: RequestFacts = {}): CheckResult {
  if (service === 'sqs' && isSqsBatchOperation(operation)) return checkSqsBatch(operation, input as SqsBatchInput);
  return RULES[service][operation]?.(input, facts) ?? OK;
}
