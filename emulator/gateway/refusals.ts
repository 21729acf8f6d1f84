/** Refusals the gateway answers itself, in each service's shape. */
import { randomUUID } from 'node:crypto';
import { s3ErrorResponse, snsErrorResponse } from '../../aws/error-xml';
import type { RequestShape } from './aws-request';
import type { Refusal } from './iam-guard';

const MESSAGE = 'The security token included in the request is invalid.';

/** What a refusal names: the operation (`sqs:SendMessage`) or, for a request without one, its method and path. */
export type RefusedRequest = RequestShape & { readonly operation?: string };

/** Rule ids under which the layer counts the refusals of this file (`ContractStats.byRule`). */
export const GATEWAY_RULES = {
  unrecognizedClient: 'gateway.unrecognized-client',
  unclassified: 'gateway.unclassified-request',
} as const;

/**
 * A request signed with an access key the local account does not know, or not signed: what AWS
 * answers for an unknown key (`UnrecognizedClientException` from the JSON services,
 * `InvalidClientTokenId` with 403 from SQS and SNS; Lambda's REST-JSON `UnrecognizedClientException`
 * is a 403 too; S3's `InvalidAccessKeyId`, 403, naming the key, and `AccessDenied` for an
 * anonymous request, which local mode never lets through: Amazon S3 API Reference, "Error
 * responses"). Local mode's clients sign with the local account's key or a function's.
 */
export function unrecognizedClient(request: RefusedRequest, accessKeyId: string | undefined, line: string): Refusal {
  const what = request.operation === undefined ? line : `${request.service}:${request.operation}`;
  const summary = `${what} refused: access key ${accessKeyId ?? '(none: the request is not signed)'} is neither the local account's nor a local function's`;
  if (request.protocol === 'restXml') return s3UnknownKey(accessKeyId, summary);
  if (request.protocol === 'query') return xmlRefusal('InvalidClientTokenId', summary);
  if (request.protocol === 'restJson') return restJsonRefusal('UnrecognizedClientException', 403, MESSAGE, summary);
  const sqs = request.service === 'sqs';
  const body = JSON.stringify({ __type: sqs ? 'com.amazonaws.sqs#InvalidClientTokenId' : 'UnrecognizedClientException', message: MESSAGE });
  const headers: Record<string, string> = { 'content-type': request.protocol === 'json11' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(body)) };
  if (sqs) headers['x-amzn-query-error'] = 'InvalidClientTokenId;Sender';
  return { status: sqs ? 403 : 400, headers, body, summary };
}

/**
 * A request the gateway cannot classify as an operation of a service it serves: it cannot be
 * decided against IAM, so it is refused as the service refuses an operation it does not know
 * (`UnknownOperationException` from the JSON services and Lambda's API, `InvalidAction` from the
 * query protocol), or, on S3, with `AccessDenied`: local mode denies what it cannot decide.
 */
export function unclassifiedRequest(shape: RequestShape, line: string): Refusal {
  const summary = `${line} refused: local mode cannot tell which ${shape.service === 'unknown' ? '' : `${shape.service} `}operation it is, so it cannot decide it (fail closed)`;
  switch (shape.protocol) {
    case 'restXml':
      return s3Refusal('AccessDenied', `local mode refuses ${line}: it is no S3 operation local mode serves and can decide against IAM`, summary);
    case 'restJson':
      return restJsonRefusal('UnknownOperationException', 404, shape.service === 'rds-data' ? `local mode's Data API serves only POST /BeginTransaction, /Execute, /BatchExecute, /CommitTransaction and /RollbackTransaction, not ${line}` : `local mode's Lambda API serves only Invoke (POST /2015-03-31/functions/{FunctionName}/invocations), not ${line}`, summary);
    case 'query':
      return queryRefusal('InvalidAction', 400, 'The action or operation requested is invalid. Verify that the action is typed correctly.', summary);
    default: {
      const body = JSON.stringify({ __type: 'UnknownOperationException', message: `local mode does not serve ${line}` });
      return { status: 400, headers: { 'content-type': shape.protocol === 'json11' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(body)) }, body, summary };
    }
  }
}

function s3UnknownKey(accessKeyId: string | undefined, summary: string): Refusal {
  if (accessKeyId === undefined) return s3Refusal('AccessDenied', 'Access Denied', summary);
  return s3Refusal('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', summary, { AWSAccessKeyId: accessKeyId });
}

function s3Refusal(code: string, message: string, summary: string, elements?: Readonly<Record<string, string>>): Refusal {
  const requestId = randomUUID();
  const body = s3ErrorResponse({ code, message, requestId, elements });
  return { status: 403, headers: { 'content-type': 'application/xml', 'content-length': String(Buffer.byteLength(body)), 'x-amz-request-id': requestId }, body, summary };
}

function restJsonRefusal(code: string, status: number, message: string, summary: string): Refusal {
  const body = JSON.stringify({ Type: 'User', message });
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': code, 'content-length': String(Buffer.byteLength(body)) }, body, summary };
}

function xmlRefusal(code: string, summary: string): Refusal {
  return queryRefusal(code, 403, MESSAGE, summary);
}

function queryRefusal(code: string, status: number, message: string, summary: string): Refusal {
  const body = snsErrorResponse({ fault: 'Sender', code, message, requestId: 'local' });
  return { status, headers: { 'content-type': 'text/xml', 'content-length': String(Buffer.byteLength(body)) }, body, summary };
}
