/**
 * Lambda's answers to Invoke (API Reference: Invoke): 200 with the function's response as the
 * payload; a function error is a 200 too, with `X-Amz-Function-Error: Unhandled` and
 * `{ errorType, errorMessage }` as the payload ("The status code in the API response doesn't
 * reflect function errors"); a response over 6 MB is the function error
 * `Function.ResponseSizeTooLarge`; `DryRun` is a 204 without a body. Errors that keep the
 * function from running are REST-JSON errors: the code in `x-amzn-errortype`, a `Type` of `User`
 * in the body.
 */
import { randomUUID } from 'node:crypto';
import type { InvokeResult } from '../types';
import { LATEST_VERSION } from '../../aws/lambda/function-name';
import { LAMBDA_LIMITS } from '../../aws/limits';
import type { EngineAnswer } from './forward';

/** What a synchronous invocation came to, as Lambda answers it. */
export function invocationAnswer(result: InvokeResult): EngineAnswer {
  if (!result.ok) return functionError(result.error.name, result.error.message);
  const payload = Buffer.from(JSON.stringify(result.response ?? null));
  if (payload.length > LAMBDA_LIMITS.maxSyncInvokeResponseBytes) {
    return functionError('Function.ResponseSizeTooLarge', `Response payload size exceeded maximum allowed payload size (${LAMBDA_LIMITS.maxSyncInvokeResponseBytes} bytes).`);
  }
  return answer(200, payload);
}

/** `DryRun`: the request would be allowed. */
export function dryRunAnswer(): EngineAnswer {
  return answer(204, Buffer.alloc(0));
}

/**
 * An error of Lambda's API. `messageKey` follows the SDK's model of each error:
 * `ResourceNotFoundException` carries `Message`, the others `message`.
 */
export function lambdaServiceError(code: string, status: number, message: string, messageKey: 'message' | 'Message' = 'message'): EngineAnswer {
  const body = Buffer.from(JSON.stringify({ Type: status >= 500 ? 'Service' : 'User', [messageKey]: message }));
  return { status, headers: { ...headersFor(body), 'x-amzn-errortype': code }, body };
}

function functionError(errorType: string, errorMessage: string): EngineAnswer {
  const reply = answer(200, Buffer.from(JSON.stringify({ errorType, errorMessage })));
  return { ...reply, headers: { ...reply.headers, 'x-amz-function-error': 'Unhandled' } };
}

function answer(status: number, body: Buffer): EngineAnswer {
  return { status, headers: { ...headersFor(body), 'x-amz-executed-version': LATEST_VERSION }, body };
}

function headersFor(body: Buffer): Record<string, string> {
  return { 'content-type': 'application/json', 'content-length': String(body.length), 'x-amzn-requestid': randomUUID() };
}
