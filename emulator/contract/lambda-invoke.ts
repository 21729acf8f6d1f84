/**
 * Lambda's rules for Invoke's payload (API Reference: Invoke; Developer Guide: "Lambda quotas"):
 * a synchronous invocation's request body holds at most 6 MB, which Lambda refuses with a 413
 * `RequestEntityTooLargeException`, "Request must be smaller than 6291456 bytes for the
 * InvokeFunction operation" (the code and message as Lambda answers them; the SDK's model names a
 * `RequestTooLargeException` that this answer is not); and the payload must be JSON, else a 400
 * `InvalidRequestContentException`, "Could not parse request body into json: ..." (the detail
 * after the colon is local mode's own). Nothing behind the gateway would refuse either: the local
 * functions take any event. The `ClientContext` header holds at most 3,583 characters of base64
 * (API Reference: Invoke) that decode to a JSON object, which the function reads as
 * `context.clientContext`; the code and messages of those two refusals are local mode's own
 * reading (`InvalidRequestContentException`, as for a payload that is not JSON).
 */
import { fail, firstFailure, OK, type AwsError, type CheckResult } from './aws-error';
import { LAMBDA_LIMITS } from '../../aws/limits';

export const LAMBDA_RULES = {
  payloadSize: 'lambda.invoke.payload-size',
  payloadJson: 'lambda.invoke.payload-json',
  clientContext: 'lambda.invoke.client-context',
} as const;

/** What the rules read of an Invoke: its body, the payload, and the client context header. */
export interface LambdaInvokeInput {
  readonly Payload?: Uint8Array;
  /** Base64 of a JSON object, as the SDK sends `ClientContext`. */
  readonly ClientContext?: string;
}

/** Invoke's rules: the size, then JSON, then the client context. */
export function checkInvoke(input: LambdaInvokeInput): CheckResult {
  const payload = input.Payload ?? new Uint8Array();
  return firstFailure([() => checkSize(payload.length), () => checkJson(payload), () => checkClientContext(input.ClientContext)]);
}

/** The client context as the function gets it: the JSON object the header's base64 holds. */
export function decodeClientContext(header: string): unknown {
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown;
}

function checkClientContext(header: string | undefined): CheckResult {
  if (header === undefined) return OK;
  const refuse = (message: string) => fail(lambdaError(LAMBDA_RULES.clientContext, 'InvalidRequestContentException', 400, message));
  if (header.length > LAMBDA_LIMITS.maxClientContextChars) return refuse(`Client context must be at most ${LAMBDA_LIMITS.maxClientContextChars} characters of base64 (given ${header.length})`);
  try {
    const decoded = decodeClientContext(header);
    if (typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded)) return OK;
  } catch {
    // refused below
  }
  return refuse('Client context must be a valid Base64-encoded JSON object');
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
