/**
 * Which service, operation and wire protocol a request speaks, from its headers: the JSON
 * protocols name the operation in `X-Amz-Target` (`AmazonSQS.SendMessage`,
 * `DynamoDB_20120810.PutItem`, `Kinesis_20131202.PutRecords`); SNS's query protocol names it in
 * the form's `Action`; Lambda's REST API in the method and path
 * (`POST /2015-03-31/functions/{FunctionName}/invocations` is Invoke), and S3's REST API in the
 * method, path and query (emulator/gateway/s3-request.ts), answered in XML (`restXml`).
 */
import type { ContractService } from './check-request';
import type { WireProtocol } from './render';

/** A request's service, operation and protocol. */
export interface RequestTarget {
  readonly service: ContractService | 'dynamodb-streams' | 's3' | 'rds-data';
  readonly operation: string;
  readonly protocol: WireProtocol;
}

const TARGET_PREFIXES = {
  AmazonSQS: { service: 'sqs', protocol: 'json10' },
  DynamoDB_20120810: { service: 'dynamodb', protocol: 'json10' },
  DynamoDBStreams_20120810: { service: 'dynamodb-streams', protocol: 'json10' },
  Kinesis_20131202: { service: 'kinesis', protocol: 'json11' },
} as const;

/** The target an `X-Amz-Target` header names, or undefined for another service or none. */
export function targetOfHeader(header: string | undefined): RequestTarget | undefined {
  const [prefix = '', operation = ''] = (header ?? '').split('.');
  const known = TARGET_PREFIXES[prefix as keyof typeof TARGET_PREFIXES];
  return known === undefined || operation === '' ? undefined : { ...known, operation };
}

/** The SNS target of a query-protocol form, or undefined without an `Action`. */
export function targetOfSnsForm(form: URLSearchParams): RequestTarget | undefined {
  const action = form.get('Action');
  return action === null ? undefined : { service: 'sns', operation: action, protocol: 'query' };
}

/** Invoke's path; the function name is one path segment, percent-encoded (an ARN's colons are). */
const LAMBDA_INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** The function an Invoke names (decoded), or undefined for any other method and path. */
export function lambdaInvokeFunctionName(method: string | undefined, pathname: string): string | undefined {
  const encoded = method === 'POST' ? LAMBDA_INVOKE_PATH.exec(pathname)?.[1] : undefined;
  if (encoded === undefined) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * The RDS Data API's operations by path (REST-JSON, every one a POST: the API Reference's
 * "Request Syntax" of each, and `@aws-sdk/client-rds-data`'s serializers). `ExecuteSql` is
 * Aurora Serverless v1's, which local mode does not serve.
 */
const DATA_API_PATHS: Readonly<Record<string, string>> = {
  '/BeginTransaction': 'BeginTransaction',
  '/Execute': 'ExecuteStatement',
  '/BatchExecute': 'BatchExecuteStatement',
  '/CommitTransaction': 'CommitTransaction',
  '/RollbackTransaction': 'RollbackTransaction',
};

/** The Data API target a method and path name, or undefined for any other. */
export function dataApiTargetOf(method: string | undefined, pathname: string): RequestTarget | undefined {
  const operation = method === 'POST' ? DATA_API_PATHS[pathname] : undefined;
  return operation === undefined ? undefined : { service: 'rds-data', operation, protocol: 'restJson' };
}

/** Lambda's Invoke target. */
export const LAMBDA_INVOKE_TARGET: RequestTarget = { service: 'lambda', operation: 'Invoke', protocol: 'restJson' };
