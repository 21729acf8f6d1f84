/**
 * A refused request as the service answers it: error code, HTTP status, message, headers and body,
 * one function per service. The message is IAM's, `User: <session ARN> is not authorized to
 * perform: <action> on resource: <ARN> because no identity-based policy allows the <action>
 * action` (or `... with an explicit deny in a resource-based policy`), as seen in real responses:
 * - DynamoDB: `AccessDeniedException`, 400 ("Service: DynamoDb, Status Code: 400");
 *   `__type` `com.amazon.coral.service#AccessDeniedException` (aws-amplify/amplify-category-api#2561).
 * - SQS: `AccessDenied`, 403, the action in lower case (`sqs:sendmessage`; aws/serverless-application-model#3633).
 *   JSON protocol: `x-amzn-query-error: AccessDenied;Sender` (SQS Developer Guide, "Interpreting
 *   Amazon SQS JSON API responses"), `__type` `com.amazon.coral.service#AccessDeniedException`.
 * - Kinesis: `AccessDeniedException`, 400 (awslabs/amazon-kinesis-connector-flink#65; body as in aws-amplify/amplify-cli#11631).
 * - SNS: `AuthorizationError`, 403, the action as `SNS:Publish` (aws-ia/terraform-aws-control_tower_account_factory#151);
 *   a KMS refusal while publishing to an encrypted topic is `KMSAccessDenied`, 400, carrying KMS's
 *   own message (aws-samples/aws-secure-environment-accelerator#971; the SDK's SNS model).
 * - KMS: `AccessDeniedException`, 400 ("Service: AWSKMS; Status Code: 400").
 * - S3: `AccessDenied`, 403, REST XML `<Error><Code>AccessDenied</Code><Message>…</Message><RequestId>…`
 *   (Amazon S3 API Reference, "Error responses"), with IAM's sentence as the message.
 * - Lambda: `AccessDeniedException`, 403 ("Service: AWSLambda; Status Code: 403; Error Code:
 *   AccessDeniedException": awslabs/aws-deployment-framework#460), REST-JSON, the code in
 *   `x-amzn-errortype`, the body `{"Message": ...}` (danilop/LambdAuth#37) with Lambda's `Type`.
 * - RDS Data API: `AccessDeniedException`, 403 (its model, `@aws-sdk/client-rds-data`), REST-JSON,
 *   the code in `x-amzn-errortype`, the body `{"message": ...}`. A call whose role may not read
 *   the secret is refused the same way here, naming `secretsmanager:GetSecretValue`: the Data API
 *   asks Secrets Manager as the caller ("Authorizing access to the Amazon RDS Data API"), and the
 *   error it answers with then is not documented.
 */
import { s3ErrorResponse, snsErrorResponse, sqsErrorResponse } from '../../aws/error-xml';
import { AwsService, DenyReason, PolicyType } from './types';

/** What was refused, and why, in IAM's terms. */
export interface Refusal {
  /** The caller's role session ARN. */
  readonly principalArn: string;
  readonly action: string;
  readonly resource: string;
  readonly reason: DenyReason;
  readonly policyType: PolicyType;
  /** Why local mode refused where AWS might not have (it failed closed): added to the message. @default - none */
  readonly note?: string;
}

/** The response a service sends for a refused request. */
export interface AwsDenial {
  readonly service: AwsService;
  /** The error code on the wire (what the SDK reports as the error's code). */
  readonly code: string;
  readonly status: 400 | 403;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The wire protocols: the AWS SDK for JavaScript v3 speaks JSON to SQS, the query protocol to SNS. */
export const WireProtocol = { JSON: 'json', QUERY: 'query' } as const;
export type WireProtocol = (typeof WireProtocol)[keyof typeof WireProtocol];

/** Options of {@link awsDenial}. */
export interface DenialOptions {
  readonly requestId: string;
  /** Only SQS speaks both. @default the SDK v3's protocol: JSON for SQS */
  readonly protocol?: WireProtocol;
}

/** IAM's sentence for a refusal; `render` writes the action as the service does. A local-mode note follows in parentheses. */
export function notAuthorizedMessage(refusal: Refusal, render: (action: string) => string = (action) => action): string {
  const action = render(refusal.action);
  const article = refusal.policyType === PolicyType.IDENTITY ? 'an' : 'a';
  const why = refusal.reason === DenyReason.EXPLICIT_DENY ? `with an explicit deny in ${article} ${refusal.policyType} policy` : `because no ${refusal.policyType} policy allows the ${action} action`;
  const note = refusal.note === undefined ? '' : ` (local mode: ${refusal.note})`;
  return `User: ${refusal.principalArn} is not authorized to perform: ${action} on resource: ${refusal.resource} ${why}${note}`;
}

/** The response of `service` refusing a request. */
export function awsDenial(service: AwsService, refusal: Refusal, options: DenialOptions): AwsDenial {
  switch (service) {
    case AwsService.DYNAMODB:
    case AwsService.DYNAMODB_STREAMS:
      return dynamodbDenial(refusal, options.requestId, service);
    case AwsService.SQS:
      return sqsDenial(refusal, options.requestId, options.protocol ?? WireProtocol.JSON);
    case AwsService.KINESIS:
      return kinesisDenial(refusal, options.requestId);
    case AwsService.SNS:
      return snsDenial(refusal, options.requestId);
    case AwsService.KMS:
      return kmsDenial(refusal, options.requestId);
    case AwsService.S3:
      return s3Denial(refusal, options.requestId);
    case AwsService.LAMBDA:
      return lambdaDenial(refusal, options.requestId);
    case AwsService.RDS_DATA:
      return rdsDataDenial(refusal, options.requestId);
  }
}

/** DynamoDB (and DynamoDB Streams, which answers alike): JSON 1.0. */
export function dynamodbDenial(refusal: Refusal, requestId: string, service: AwsService = AwsService.DYNAMODB): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', Message: message });
  return { service, code: 'AccessDeniedException', status: 400, message, headers: jsonHeaders('1.0', requestId), body };
}

/** SQS: the action in lower case; JSON with the query-compatible error header, or the query protocol's XML. */
export function sqsDenial(refusal: Refusal, requestId: string, protocol: WireProtocol = WireProtocol.JSON): AwsDenial {
  const message = notAuthorizedMessage(refusal, (action) => action.toLowerCase());
  const denial = { service: AwsService.SQS, code: 'AccessDenied', status: 403, message } as const;
  if (protocol === WireProtocol.QUERY) {
    const body = sqsErrorResponse({ fault: 'Sender', code: 'AccessDenied', message, requestId });
    return { ...denial, headers: xmlHeaders(requestId), body };
  }
  const body = JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message });
  return { ...denial, headers: { ...jsonHeaders('1.0', requestId), 'x-amzn-query-error': 'AccessDenied;Sender' }, body };
}

/** Kinesis: JSON 1.1. */
export function kinesisDenial(refusal: Refusal, requestId: string): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = JSON.stringify({ __type: 'AccessDeniedException', Message: message });
  return { service: AwsService.KINESIS, code: 'AccessDeniedException', status: 400, message, headers: jsonHeaders('1.1', requestId), body };
}

/** SNS (query protocol): `AuthorizationError`, or `KMSAccessDenied` when the topic's key refused. */
export function snsDenial(refusal: Refusal, requestId: string): AwsDenial {
  if (refusal.action.toLowerCase().startsWith('kms:')) {
    const message = `${notAuthorizedMessage(refusal)} (Service: AWSKMS; Status Code: 400; Error Code: AccessDeniedException; Request ID: ${requestId}; Proxy: null)`;
    return snsError('KMSAccessDenied', 400, message, requestId);
  }
  return snsError('AuthorizationError', 403, notAuthorizedMessage(refusal, (action) => action.replace(/^sns:/i, 'SNS:')), requestId);
}

function snsError(code: string, status: 400 | 403, message: string, requestId: string): AwsDenial {
  const body = snsErrorResponse({ fault: 'Sender', code, message, requestId });
  return { service: AwsService.SNS, code, status, message, headers: xmlHeaders(requestId), body };
}

/** KMS called directly: JSON 1.1. */
export function kmsDenial(refusal: Refusal, requestId: string): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = JSON.stringify({ __type: 'AccessDeniedException', message });
  return { service: AwsService.KMS, code: 'AccessDeniedException', status: 400, message, headers: jsonHeaders('1.1', requestId), body };
}

/** S3: REST XML, no Type element. */
export function s3Denial(refusal: Refusal, requestId: string): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = s3ErrorResponse({ code: 'AccessDenied', message, requestId });
  return { service: AwsService.S3, code: 'AccessDenied', status: 403, message, headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId }, body };
}

/** Lambda: REST-JSON, the code in a header. */
export function lambdaDenial(refusal: Refusal, requestId: string): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = JSON.stringify({ Type: 'User', Message: message });
  const headers = { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException', 'x-amzn-requestid': requestId };
  return { service: AwsService.LAMBDA, code: 'AccessDeniedException', status: 403, message, headers, body };
}

/** The RDS Data API: REST-JSON, the code in a header, `message` in the body. */
export function rdsDataDenial(refusal: Refusal, requestId: string): AwsDenial {
  const message = notAuthorizedMessage(refusal);
  const body = JSON.stringify({ message });
  const headers = { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException', 'x-amzn-requestid': requestId };
  return { service: AwsService.RDS_DATA, code: 'AccessDeniedException', status: 403, message, headers, body };
}

function jsonHeaders(version: '1.0' | '1.1', requestId: string): Record<string, string> {
  return { 'content-type': `application/x-amz-json-${version}`, 'x-amzn-requestid': requestId };
}

function xmlHeaders(requestId: string): Record<string, string> {
  return { 'content-type': 'text/xml', 'x-amzn-requestid': requestId };
}
