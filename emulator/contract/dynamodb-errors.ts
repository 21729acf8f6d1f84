/**
 * DynamoDB's errors as its JSON protocol (1.0) carries them. The `__type` and the `Message` key
 * are as DynamoDB Local (AWS's own jar) writes them, recorded from its answers:
 * `com.amazon.coral.validate#ValidationException` and
 * `com.amazonaws.dynamodb.v20120810#TransactionCanceledException` with `CancellationReasons`.
 */
import type { AwsError } from './aws-error';

const DYNAMODB_NAMESPACE = 'com.amazonaws.dynamodb.v20120810';

/** A reason in `TransactionCanceledException.CancellationReasons`, one per action, in order. */
export interface CancellationReason {
  readonly Code: string;
  readonly Message?: string;
}

/** The reason DynamoDB gives for an action on an item another request holds (API Reference, TransactWriteItems). */
export const TRANSACTION_CONFLICT_REASON: CancellationReason = { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item.' };

/** The reason of an action that did not cancel the transaction. */
export const NO_REASON: CancellationReason = { Code: 'None' };

/** DynamoDB's 400 `ValidationException`. */
export function dynamoValidationError(rule: string, message: string): AwsError {
  return { rule, code: 'ValidationException', message, status: 400, fault: 'Sender', jsonType: 'com.amazon.coral.validate#ValidationException', messageKey: 'Message' };
}

/** `TransactionCanceledException` with one reason per action, and DynamoDB's message that lists their codes. */
export function transactionCanceled(rule: string, reasons: readonly CancellationReason[]): AwsError {
  const message = `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`;
  return { ...dynamoError(rule, 'TransactionCanceledException', message), fields: { CancellationReasons: reasons } };
}

/** `TransactionConflictException`: a PutItem, UpdateItem or DeleteItem on an item a transaction holds. */
export function transactionConflict(rule: string): AwsError {
  return dynamoError(rule, 'TransactionConflictException', 'Transaction is ongoing for the item');
}

/** `TransactionInProgressException`: a retry of a `ClientRequestToken` whose first attempt is still running. */
export function transactionInProgress(rule: string): AwsError {
  // The API Reference's description of the error; AWS's wording of the message was not found.
  return dynamoError(rule, 'TransactionInProgressException', 'The transaction with the given request token is already in progress.');
}

function dynamoError(rule: string, name: string, message: string): AwsError {
  return { rule, code: name, message, status: 400, fault: 'Sender', jsonType: `${DYNAMODB_NAMESPACE}#${name}`, messageKey: 'Message' };
}
