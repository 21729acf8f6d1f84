/** ARNs of the resources the evaluator authorizes, built from the names and URLs requests carry. */

/** Where ARNs are built: the partition, region and account of the stack. */
export interface ArnScope {
  readonly region: string;
  readonly accountId: string;
  /** @default 'aws' */
  readonly partition?: string;
}

function arn(scope: ArnScope, service: string, resource: string, region = scope.region): string {
  return `arn:${scope.partition ?? 'aws'}:${service}:${region}:${scope.accountId}:${resource}`;
}

/** `arn:aws:sqs:<region>:<account>:<name>` (SQS API permissions reference: the queue ARN). */
export function queueArn(scope: ArnScope, name: string, accountId = scope.accountId): string {
  return arn({ ...scope, accountId }, 'sqs', name);
}

/**
 * The queue ARN of a queue URL, `<scheme>://<host>/<account>/<name>`. The region comes from the
 * host when it names one (`sqs.<region>.amazonaws.com`, fauxqs's `sqs.<region>.localhost`, the
 * legacy `<region>.queue.amazonaws.com`), else from the scope.
 */
export function queueArnFromUrl(scope: ArnScope, url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const [accountId, name, ...rest] = parsed.pathname.split('/').filter(Boolean);
  if (!accountId || !name || rest.length > 0) return undefined;
  const region = /^sqs\.([a-z0-9-]+)\./.exec(parsed.hostname)?.[1] ?? /^([a-z0-9-]+)\.queue\./.exec(parsed.hostname)?.[1] ?? scope.region;
  return arn({ ...scope, accountId }, 'sqs', name, region);
}

/** `arn:aws:dynamodb:<region>:<account>:table/<name>`; a name that is already an ARN stays as it is. */
export function tableArn(scope: ArnScope, nameOrArn: string): string {
  return nameOrArn.startsWith('arn:') ? nameOrArn : arn(scope, 'dynamodb', `table/${nameOrArn}`);
}

/** `arn:aws:kinesis:<region>:<account>:stream/<name>`. */
export function kinesisStreamArn(scope: ArnScope, name: string): string {
  return arn(scope, 'kinesis', `stream/${name}`);
}

/** `arn:aws:kms:<region>:<account>:key/<key id>`. */
export function keyArn(scope: ArnScope, keyId: string): string {
  return arn(scope, 'kms', `key/${keyId}`);
}
