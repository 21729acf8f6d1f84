/**
 * What the DLQ operations need of IAM, call by call: each call that AWS may refuse is made through
 * {@link needing}, which names the action and the resource it needs, so that a refusal stops the
 * command with the permission to grant instead of an SDK error, and the operator policy
 * (operator-policy.ts) grants the same actions on the same resources.
 */
import { PermissionDeniedError, type IamPermission } from './errors';
import type { StackTopology } from './types';

/**
 * The error names AWS gives a refusal for lack of permission: IAM's (`AccessDenied` for SQS and
 * S3, `AccessDeniedException` for the JSON services, `AuthorizationError` for SNS), S3's for a
 * `HEAD` request, which carries no body (`Forbidden`), and KMS's through SQS and Kinesis.
 */
const DENIALS = new Set(['AccessDenied', 'AccessDeniedException', 'AuthorizationError', 'Forbidden', 'KmsAccessDenied', 'KMSAccessDeniedException']);

/** Whether AWS refused the call for lack of a permission. */
export function isAccessDenied(error: unknown): boolean {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && DENIALS.has(name);
}

/**
 * Makes a call that needs `permission`.
 * @throws PermissionDeniedError when AWS refuses it for lack of a permission; any other error as it is
 * @example
 * await needing({ action: 'sqs:SendMessage', resource: queue.arn }, () => sqs.send(new SendMessageCommand(input)));
 */
export async function needing<T>(permission: IamPermission, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PermissionDeniedError || !isAccessDenied(error)) throw error;
    throw new PermissionDeniedError(permission, { cause: error });
  }
}

/** The partition, region and account of a stack, for the ARNs of what its topology names only by name. */
export interface ArnScope {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
}

/** From the ARN of any queue of the stack (every stack the tooling reads has one); `*` where none says. */
export function arnScopeOf(topology: StackTopology): ArnScope {
  const [, partition = 'aws', , , accountId = '*'] = (topology.queues[0]?.arn ?? topology.streams[0]?.arn ?? '').split(':');
  return { partition: partition || 'aws', region: topology.region, accountId: accountId || '*' };
}

/** `arn:<partition>:lambda:<region>:<account>:function:<name>`. */
export function functionArn(scope: ArnScope, functionName: string): string {
  return `arn:${scope.partition}:lambda:${scope.region}:${scope.accountId}:function:${functionName}`;
}

/** `arn:<partition>:s3:::<bucket>`, or one of its objects with `key`. */
export function bucketArn(scope: ArnScope, bucket: string, key?: string): string {
  return `arn:${scope.partition}:s3:::${bucket}${key === undefined ? '' : `/${key}`}`;
}
