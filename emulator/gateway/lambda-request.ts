/**
 * Lambda's Invoke as the AWS SDK sends it (REST-JSON, API Reference: Invoke): the function in the
 * path, `Qualifier` in the query, `X-Amz-Invocation-Type`, `X-Amz-Log-Type` and
 * `X-Amz-Client-Context` in headers, the payload as the whole body.
 */
import type { IncomingMessage } from 'node:http';
import { lambdaInvokeFunctionName } from '../contract';

/** An Invoke read off the wire, with the SDK's member names. */
export interface LambdaInvokeRequest {
  readonly FunctionName: string;
  readonly Qualifier?: string;
  /** `RequestResponse` (Lambda's default), `Event` or `DryRun`. */
  readonly InvocationType?: string;
  readonly LogType?: string;
  /** Base64 of a JSON object; the function reads it as `context.clientContext`. */
  readonly ClientContext?: string;
  readonly Payload: Buffer;
}

/** The Invoke `req` is, or undefined for any other request. */
export function lambdaInvokeOf(req: IncomingMessage, body: Buffer): LambdaInvokeRequest | undefined {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const functionName = lambdaInvokeFunctionName(req.method, url.pathname);
  if (functionName === undefined) return undefined;
  return {
    FunctionName: functionName,
    Qualifier: url.searchParams.get('Qualifier') ?? undefined,
    InvocationType: header(req, 'x-amz-invocation-type'),
    LogType: header(req, 'x-amz-log-type'),
    ClientContext: header(req, 'x-amz-client-context'),
    Payload: body,
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
