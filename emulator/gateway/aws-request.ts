/**
 * An AWS API request as the gateway sees it: which service and operation, its input, who signed
 * it, and where from. Read once, body buffered: the rules and IAM need the input, and the engine
 * needs the bytes.
 */
import type { IncomingMessage } from 'node:http';
import { LAMBDA_INVOKE_TARGET, snsPublishFromForm, targetOfHeader, targetOfSnsForm, type RequestTarget } from '../contract';
import { lambdaInvokeOf } from './lambda-request';

/** The query-protocol `Version` of SNS's API: a form that names another one (SQS's query protocol, say) is not SNS's. */
const SNS_API_VERSION = '2010-03-31';

/** What a request says of its origin: the condition keys AWS takes from it. */
export interface RequestOrigin {
  /** The Region of its signature's credential scope. */
  readonly region?: string;
  /** The address it came from, IPv4-mapped addresses unwrapped. */
  readonly sourceIp?: string;
  readonly userAgent?: string;
  readonly referer?: string;
}

/** A request read off the wire. */
export interface AwsRequest {
  /** Undefined for anything that is not an AWS API call the gateway knows (it is forwarded as it is). */
  readonly target?: RequestTarget;
  /** The parsed input: the JSON body, the SNS form as an object, or Lambda's Invoke (`LambdaInvokeRequest`). `{}` when there is none. */
  readonly input: Readonly<Record<string, unknown>>;
  /** The access key id of the request's SigV4 signature, if it is signed. */
  readonly accessKeyId?: string;
  readonly origin: RequestOrigin;
  readonly body: Buffer;
}

/** Reads and parses a request; never throws for a body it cannot parse (the engine answers that). */
export async function readAwsRequest(req: IncomingMessage): Promise<AwsRequest> {
  const body = await readBody(req);
  const scope = /Credential=([^,\s]+)/.exec(req.headers.authorization ?? '')?.[1]?.split('/');
  const accessKeyId = scope?.[0] || undefined;
  const origin = originOf(req, scope?.[2]);
  const header = targetOfHeader(headerValue(req.headers['x-amz-target']));
  if (header) return { target: header, input: parseJson(body), accessKeyId, origin, body };
  const invoke = lambdaInvokeOf(req, body);
  if (invoke) return { target: LAMBDA_INVOKE_TARGET, input: { ...invoke }, accessKeyId, origin, body };
  const form = formOf(req, body);
  const sns = form?.get('Version') === SNS_API_VERSION ? targetOfSnsForm(form) : undefined;
  if (form && sns) return { target: sns, input: snsInput(sns.operation, form), accessKeyId, origin, body };
  return { input: {}, accessKeyId, origin, body };
}

function snsInput(operation: string, form: URLSearchParams): Readonly<Record<string, unknown>> {
  // The publish's own fields parsed (attributes, subject), beside the form's flat ones (TopicArn).
  const fields = Object.fromEntries(form);
  return operation === 'Publish' ? { ...fields, ...snsPublishFromForm(form) } : fields;
}

function originOf(req: IncomingMessage, region: string | undefined): RequestOrigin {
  const address = req.socket.remoteAddress;
  return {
    ...(region && { region }),
    ...(address !== undefined && { sourceIp: address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') }),
    ...(headerValue(req.headers['user-agent']) !== undefined && { userAgent: headerValue(req.headers['user-agent']) }),
    ...(headerValue(req.headers.referer) !== undefined && { referer: headerValue(req.headers.referer) }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function parseJson(body: Buffer): Readonly<Record<string, unknown>> {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function formOf(req: IncomingMessage, body: Buffer): URLSearchParams | undefined {
  const type = headerValue(req.headers['content-type']) ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(body.toString('utf8')) : undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
