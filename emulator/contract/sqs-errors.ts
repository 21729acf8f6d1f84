/**
 * SQS's errors as its JSON protocol carries them. SQS is `awsQueryCompatible`: the body's
 * `__type` names the error shape, and the `x-amzn-query-error` header carries the query-era
 * code (`AWS.SimpleQueueService.…` for the batch errors) that the SDK and the CLI report. Shapes
 * and codes from the SQS model in @aws-sdk/client-sqs 3.1175 (`awsQueryError` traits) and from
 * responses recorded against AWS (LocalStack's validated SQS snapshots: `Code`, `QueryErrorCode`).
 */
import type { AwsError } from './aws-error';

/** Errors a rule can raise, by shape name: the `__type` shape and the query-era code. */
const SQS_ERROR_SHAPES = {
  InvalidParameterValue: { shape: 'InvalidParameterValueException', queryCode: 'InvalidParameterValue' },
  InvalidMessageContents: { shape: 'InvalidMessageContents', queryCode: 'InvalidMessageContents' },
  MissingParameter: { shape: 'MissingRequiredParameterException', queryCode: 'MissingParameter' },
  InvalidAttributeName: { shape: 'InvalidAttributeName', queryCode: 'InvalidAttributeName' },
  EmptyBatchRequest: { shape: 'EmptyBatchRequest', queryCode: 'AWS.SimpleQueueService.EmptyBatchRequest' },
  TooManyEntriesInBatchRequest: { shape: 'TooManyEntriesInBatchRequest', queryCode: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest' },
  InvalidBatchEntryId: { shape: 'InvalidBatchEntryId', queryCode: 'AWS.SimpleQueueService.InvalidBatchEntryId' },
  BatchEntryIdsNotDistinct: { shape: 'BatchEntryIdsNotDistinct', queryCode: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct' },
  BatchRequestTooLong: { shape: 'BatchRequestTooLong', queryCode: 'AWS.SimpleQueueService.BatchRequestTooLong' },
} as const;

/** An SQS error name a rule raises. */
export type SqsErrorName = keyof typeof SQS_ERROR_SHAPES;

/** SQS's 400 error `name` for `rule`; every error a rule raises is the sender's fault. */
export function sqsError(rule: string, name: SqsErrorName, message: string): AwsError {
  const { shape, queryCode } = SQS_ERROR_SHAPES[name];
  return {
    rule,
    code: queryCode,
    message,
    status: 400,
    fault: 'Sender',
    jsonType: `com.amazonaws.sqs#${shape}`,
    messageKey: 'message',
    queryErrorHeader: `${queryCode};Sender`,
  };
}
