/**
 * An AWS API request as the gateway sees it: which service and operation, its input, who signed
 * it, and where from. Read once, body buffered: the rules and IAM need the input, and the engine
 * needs the bytes. A request the gateway cannot classify keeps the shape its refusal must take.
 */
import type { IncomingMessage } from 'node:http';
import { dataApiTargetOf, LAMBDA_INVOKE_TARGET, snsPublishFromForm, targetOfHeader, targetOfSnsForm, type RequestTarget, type WireProtocol } from '../contract';
import { lambdaInvokeOf } from './lambda-request';
import { s3RequestOf } from './s3-request';

/** The query-protocol `Version` of SNS's API: a form that names another one (SQS's query protocol, say) is not SNS's. */
const SNS_API_VERSION = '2010-03-31';

/**
 * The REST API a gateway serves besides the JSON and query protocols, which its requests without
 * an `X-Amz-Target` or a form are read as: S3 (on fauxqs's port), Lambda, the RDS Data API, or none.
 */
export type RestApi = 's3' | 'lambda' | 'rds-data' | 'none';

/** How a refusal of the request is answered: the service it is (or seems) for, and its wire protocol. */
export interface RequestShape {
  readonly service: string;
  readonly protocol: WireProtocol;
}

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
  /** Undefined for a request the gateway cannot classify: the layer refuses it. */
  readonly target?: RequestTarget;
  readonly shape: RequestShape;
  /** The parsed input: the JSON body (the Data API's too), the SNS form as an object, Lambda's Invoke (`LambdaInvokeRequest`), S3's `S3RequestInput`. `{}` when there is none. */
  readonly input: Readonly<Record<string, unknown>>;
  /** The access key id of the request's SigV4 signature (header or presigned URL), if it is signed. */
  readonly accessKeyId?: string;
  readonly origin: RequestOrigin;
  readonly body: Buffer;
  /** `METHOD /path`, for messages about a request that has no operation. */
  readonly line: string;
}

/** Reads and parses a request; never throws for a body it cannot parse (the engine answers that). */
export async function readAwsRequest(req: IncomingMessage, rest: RestApi = 'none'): Promise<AwsRequest> {
  const body = await readBody(req);
  const signature = signatureOf(req);
  const read = { accessKeyId: signature?.accessKeyId, origin: originOf(req, signature?.region), body, line: `${req.method ?? ''} ${req.url ?? ''}` };
  const classified = classify(req, body, rest, signature?.presigned ?? false);
  return { ...read, ...classified, shape: classified.target ?? classified.shape };
}

type Classified = { readonly target: RequestTarget; readonly input: Readonly<Record<string, unknown>>; readonly shape?: undefined } | { readonly target?: undefined; readonly input: Readonly<Record<string, unknown>>; readonly shape: RequestShape };

/**
 * The engines route a request by its method, path and content type, not by what it says it is:
 * fauxqs runs any `PUT /bucket/key` as an S3 put and any form posted to `/` as SNS. A JSON
 * protocol's request is read as such only when it is one, a JSON body posted to `/`, and a form
 * only when it is posted to `/`; else the engine would run something other than what was decided.
 */
function classify(req: IncomingMessage, body: Buffer, rest: RestApi, presigned: boolean): Classified {
  const targetHeader = headerValue(req.headers['x-amz-target']);
  if (targetHeader !== undefined) {
    const header = isRootPost(req) && isJsonProtocol(req) ? targetOfHeader(targetHeader) : undefined;
    return header ? { target: header, input: parseJson(body) } : { input: {}, shape: { service: targetHeader.split('.')[0] ?? '', protocol: jsonProtocolOf(req) } };
  }
  const invoke = lambdaInvokeOf(req, body);
  if (invoke) return { target: LAMBDA_INVOKE_TARGET, input: { ...invoke } };
  const form = isRootPost(req) ? formOf(req, body) : undefined;
  if (form) {
    const sns = form.get('Version') === SNS_API_VERSION ? targetOfSnsForm(form) : undefined;
    return sns ? { target: sns, input: snsInput(sns.operation, form) } : { input: {}, shape: { service: form.get('Action') ?? 'query', protocol: 'query' } };
  }
  if (rest === 'rds-data') {
    const target = dataApiTargetOf(req.method, new URL(req.url ?? '/', 'http://gateway').pathname);
    return target ? { target, input: parseJson(body) } : { input: {}, shape: { service: 'rds-data', protocol: 'restJson' } };
  }
  if (rest === 's3') {
    const s3 = s3RequestOf(req, body, presigned);
    return s3 ? { target: { service: 's3', operation: s3.operation, protocol: 'restXml' }, input: { ...s3.input } } : { input: {}, shape: { service: 's3', protocol: 'restXml' } };
  }
  return { input: {}, shape: rest === 'lambda' ? { service: 'lambda', protocol: 'restJson' } : { service: 'unknown', protocol: jsonProtocolOf(req) } };
}

function snsInput(operation: string, form: URLSearchParams): Readonly<Record<string, unknown>> {
  // The publish's own fields parsed (attributes, subject), beside the form's flat ones (TopicArn).
  const fields = Object.fromEntries(form);
  return operation === 'Publish' ? { ...fields, ...snsPublishFromForm(form) } : fields;
}

/** What a SigV4 signature says: who signed, for which Region and service, and whether in the URL (presigned). */
interface Signature {
  readonly accessKeyId: string;
  readonly region?: string;
  readonly service?: string;
  readonly presigned: boolean;
}

/** The SigV4 signature of the `Authorization` header, or of a presigned URL's `X-Amz-Credential`. */
function signatureOf(req: IncomingMessage): Signature | undefined {
  const scope = /Credential=([^,\s]+)/.exec(req.headers.authorization ?? '')?.[1];
  const presignedScope = scope === undefined ? new URL(req.url ?? '/', 'http://gateway').searchParams.get('X-Amz-Credential') : null;
  const [accessKeyId, , region, service] = (scope ?? presignedScope ?? '').split('/');
  if (!accessKeyId) return undefined;
  return { accessKeyId, region, service, presigned: scope === undefined };
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

function isRootPost(req: IncomingMessage): boolean {
  return req.method === 'POST' && (req.url ?? '/').split('?')[0] === '/';
}

/** The JSON protocols' content types (and CBOR's, which a Kinesis client may speak). */
function isJsonProtocol(req: IncomingMessage): boolean {
  return /^application\/x-amz-(json-1\.[01]|cbor-1\.1)\b/.test(headerValue(req.headers['content-type']) ?? '');
}

function jsonProtocolOf(req: IncomingMessage): WireProtocol {
  return (headerValue(req.headers['content-type']) ?? '').includes('1.1') ? 'json11' : 'json10';
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
