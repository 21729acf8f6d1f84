/**
 * The Lambda context the benchmark hands each batch, as the Lambda runtime would: Powertools reads
 * the remaining time from it to let an in-progress record expire with the invocation, and the
 * consumer's time budget counts down on it.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { CONSUMER_DEFAULTS } from '../../lib/defaults';

/** A fresh invocation of `functionName`, with the deployed consumers' timeout ahead of it. */
export function invocationContext(functionName: string, timeoutMs = CONSUMER_DEFAULTS.timeout.toMilliseconds()): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(CONSUMER_DEFAULTS.memorySize),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
