/**
 * Renders an `AwsError` as the HTTP answer AWS sends, byte for byte where it matters to a
 * client: the status, the content type, the JSON `__type` (or the query protocol's XML
 * `<ErrorResponse>`, or REST-JSON's `x-amzn-errortype` header with a `Type` of `User` or
 * `Service` in the body, as Lambda answers, or S3's REST-XML `<Error>`) and, for SQS, the
 * `x-amzn-query-error` header the SDK names its errors by.
 */
import { randomUUID } from 'node:crypto';
import { s3ErrorResponse, snsErrorResponse } from '../../aws/error-xml';
import type { AwsError } from './aws-error';

/** The wire protocols of the clients here (AWS SDK v3, AWS CLI v1). */
export const WIRE_PROTOCOLS = {
  /** SQS, DynamoDB, DynamoDB Streams: `application/x-amz-json-1.0`. */
  json10: 'application/x-amz-json-1.0',
  /** Kinesis: `application/x-amz-json-1.1`. */
  json11: 'application/x-amz-json-1.1',
  /** SNS: form-encoded requests, XML answers. */
  query: 'text/xml',
  /** Lambda: REST with JSON bodies; an error names its code in the `x-amzn-errortype` header. */
  restJson: 'application/json',
  /** S3: REST, XML answers; an error is `<Error>` with `Code`, `Message` and `RequestId`. */
  restXml: 'application/xml',
} as const;

export type WireProtocol = keyof typeof WIRE_PROTOCOLS;

/** An HTTP answer, ready to write. */
export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Names the contract rule that refused a request, so a reader can tell it from the engine's own errors. */
export const CONTRACT_RULE_HEADER = 'x-eo-contract-rule';

/**
 * The HTTP answer for `error` in `protocol`.
 *
 * @example
 * const answer = renderError('json10', result.error);
 * res.writeHead(answer.status, answer.headers).end(answer.body);
 */
export function renderError(protocol: WireProtocol, error: AwsError, requestId: string = randomUUID()): RenderedError {
  const body = bodyOf(protocol, error, requestId);
  const headers: Record<string, string> = {
    'content-type': WIRE_PROTOCOLS[protocol],
    'content-length': String(Buffer.byteLength(body)),
    'x-amzn-requestid': requestId,
    [CONTRACT_RULE_HEADER]: error.rule,
  };
  if (protocol === 'restJson') headers['x-amzn-errortype'] = error.code;
  else if ((protocol === 'json10' || protocol === 'json11') && error.queryErrorHeader !== undefined) headers['x-amzn-query-error'] = error.queryErrorHeader;
  if (protocol === 'restXml') headers['x-amz-request-id'] = requestId;
  return { status: error.status, headers, body };
}

function bodyOf(protocol: WireProtocol, error: AwsError, requestId: string): string {
  if (protocol === 'query') return snsErrorResponse({ fault: error.fault, code: error.code, message: error.message, requestId });
  if (protocol === 'restXml') return s3ErrorResponse({ code: error.code, message: error.message, requestId });
  if (protocol === 'restJson') return JSON.stringify({ Type: error.fault === 'Sender' ? 'User' : 'Service', ...error.fields, [error.messageKey]: error.message });
  return JSON.stringify({ __type: error.jsonType, ...error.fields, [error.messageKey]: error.message });
}
