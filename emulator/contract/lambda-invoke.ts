/**
 * Lambda's rules for Invoke's payload (API Reference: Invoke; Developer Guide: "Lambda quotas"):
 * a synchronous invocation's request body holds at most 6 MB, which Lambda refuses with a 413
 * `RequestEntityTooLargeException`, "Request must be smaller than 6291456 bytes for the
 * InvokeFunction operation" (the code and message as Lambda answers them; the SDK's model names a
 * `RequestTooLargeException` that this answer is not); and the payload must be JSON, else a 400
 * `InvalidRequestContentException`, "Could not parse request body into json: ..." (the detail
 * after the colon is local mode's own). Nothing behind the gateway would refuse either: the local
 * functions take any event.
 */
import { fail, firstFailure, OK, type AwsError, type CheckResult } from './aws-error';
import { LAMBDA_LIMITS } from '../../aws/limits';

export const LAMBDA_RULES = {
  payloadSize: 'lambda.invoke.payload-size',
  payloadJson: 'lambda.invoke.payload-json',
} as const;

/** What the rules read of an Invoke: its body, the payload. */
export interface LambdaInvokeInput {
  readonly Payload?: Uint8Array;
}

/** Invoke's rules: the size, then JSON. */
export function checkInvoke(input: LambdaInvokeInput): CheckResult {
  const payload = input.Payload ?? new Uint8Array();
  return firstFailure([() => checkSize(payload.length), () => checkJson(payload)]);
}

function checkSize(bytes: number): CheckResult {
  if (bytes <= LAMBDA_LIMITS.maxSyncPayloadBytes) return OK;
  return fail(lambdaError(LAMBDA_RULES.payloadSize, 'RequestEntityTooLargeException', 413, `Request must be smaller than ${LAMBDA_LIMITS.maxSyncPayloadBytes} bytes for the InvokeFunction operation`));
}

/** An empty payload is no payload: the function gets `{}`. */
function checkJson(payload: Uint8Array): CheckResult {
  if (payload.length === 0) return OK;
  try {
    JSON.parse(Buffer.from(payload).toString('utf8'));
    return OK;
  } catch (error) {
    return fail(lambdaError(LAMBDA_RULES.payloadJson, 'InvalidRequestContentException', 400, `Could not parse request body into json: ${(error as Error).message}`));
  }
}

/** An error of Lambda's REST-JSON API: the code in `x-amzn-errortype`, the message under `message`. */
export function lambdaError(rule: string, code: string, status: number, message: string): AwsError {
  return { rule, code, message, status, fault: status >= 500 ? 'Receiver' : 'Sender', jsonType: code, messageKey: 'message' };
}
