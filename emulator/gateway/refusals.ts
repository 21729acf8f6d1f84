/** Refusals the gateway answers itself, in each service's shape. */
import { snsErrorResponse } from '../../aws/error-xml';
import type { RequestTarget } from '../contract';
import type { Refusal } from './iam-guard';

const MESSAGE = 'The security token included in the request is invalid.';

/**
 * A request signed with an access key the local account does not know: what AWS answers for an
 * unknown key (`UnrecognizedClientException` from the JSON services, `InvalidClientTokenId` with
 * 403 from SQS and SNS; Lambda's REST-JSON `UnrecognizedClientException` is a 403 too). Local
 * mode's clients sign with the local account's key or a function's.
 */
export function unrecognizedClient(target: RequestTarget, accessKeyId: string | undefined): Refusal {
  const summary = `${target.service}:${target.operation} refused: access key ${accessKeyId ?? '(none: the request is not signed)'} is neither the local account's nor a local function's`;
  if (target.protocol === 'query') return xmlRefusal('InvalidClientTokenId', summary);
  if (target.protocol === 'restJson') return restJsonRefusal('UnrecognizedClientException', summary);
  const sqs = target.service === 'sqs';
  const body = JSON.stringify({ __type: sqs ? 'com.amazonaws.sqs#InvalidClientTokenId' : 'UnrecognizedClientException', message: MESSAGE });
  const headers: Record<string, string> = { 'content-type': target.protocol === 'json11' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(body)) };
  if (sqs) headers['x-amzn-query-error'] = 'InvalidClientTokenId;Sender';
  return { status: sqs ? 403 : 400, headers, body, summary };
}

function restJsonRefusal(code: string, summary: string): Refusal {
  const body = JSON.stringify({ Type: 'User', message: MESSAGE });
  return { status: 403, headers: { 'content-type': 'application/json', 'x-amzn-errortype': code, 'content-length': String(Buffer.byteLength(body)) }, body, summary };
}

function xmlRefusal(code: string, summary: string): Refusal {
  const body = snsErrorResponse({ fault: 'Sender', code, message: MESSAGE, requestId: 'local' });
  return { status: 403, headers: { 'content-type': 'text/xml', 'content-length': String(Buffer.byteLength(body)) }, body, summary };
}
