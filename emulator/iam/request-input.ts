/** What `requiredPermissions` reads from a request, and what it needs to know besides. */
import type { ArnScope } from './arns';
import { UnknownResourceError } from './errors';
import type { AwsService, Permission } from './types';

/**
 * How names in requests map to ARNs. Each lookup may answer `undefined` to use the ARN built from
 * the scope. Local engines name some resources unlike AWS (DynamoDB Local puts `ddblocal` in its
 * ARNs), so the contract layer passes the provisioned stack's ARNs.
 */
export interface PermissionLookups extends ArnScope {
  /** A table's ARN by name. */
  readonly tableArn?: (tableName: string) => string | undefined;
  /** A queue's ARN by URL. @default parsed from the URL */
  readonly queueArn?: (queueUrl: string) => string | undefined;
  /** A Kinesis stream's ARN by name. */
  readonly streamArn?: (streamName: string) => string | undefined;
  /**
   * The stream ARN that a shard iterator (or a ListShards `NextToken`) belongs to. Iterators are
   * opaque; the contract layer remembers those it handed out.
   */
  readonly streamArnOfToken?: (token: string) => string | undefined;
  /** The KMS key of each encrypted topic, by topic ARN (`RolePolicies.topicKeys`). @default none */
  readonly topicKeys?: ReadonlyMap<string, string>;
  /** The customer-managed KMS key of each secret, by secret ARN (`RolePolicies.secretKeys`). @default none */
  readonly secretKeys?: ReadonlyMap<string, string>;
}

/** A request's JSON input, as the SDK sends it. */
export type RequestInput = Readonly<Record<string, unknown>>;

/** Where a permission is being worked out: for error messages. */
export interface Operation {
  readonly service: AwsService;
  readonly name: string;
}

/** A string parameter the operation needs. @throws UnknownResourceError when it is missing */
export function requiredString(input: RequestInput, parameter: string, operation: Operation): string {
  const value = input[parameter];
  if (typeof value === 'string' && value !== '') return value;
  throw new UnknownResourceError(operation.service, operation.name, `the request has no ${parameter}`);
}

/** The entries of a list parameter (missing: none). */
export function entries(input: RequestInput, parameter: string): readonly RequestInput[] {
  const value = input[parameter];
  return Array.isArray(value) ? (value as RequestInput[]) : [];
}

/** Permissions without repeats, in first-seen order. */
export function distinct(permissions: readonly Permission[]): Permission[] {
  const seen = new Map<string, Permission>();
  for (const permission of permissions) {
    const key = `${permission.action} ${permission.resource}`;
    if (!seen.has(key)) seen.set(key, permission);
  }
  return [...seen.values()];
}
