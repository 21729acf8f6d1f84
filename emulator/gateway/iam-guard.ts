/**
 * IAM at the gateway: a function's request is decided against its execution role's statements in
 * the template (local/iam), and refused as the service refuses it when they do not allow it.
 */
import type { RequestTarget } from '../contract';
import { authorize, AwsService, IamError, requiredPermissions, WireProtocol, type PermissionLookups, type RolePolicies, type RolePrincipal } from '../iam';
import type { StreamTokens } from './stream-tokens';

export interface IamGuardOptions {
  readonly policies: RolePolicies;
  /** The principal each function's calls are made as, by the function's logical id. */
  readonly principals: ReadonlyMap<string, RolePrincipal>;
  /** Names to ARNs, from the provisioned stack. */
  readonly lookups: Omit<PermissionLookups, 'streamArnOfToken' | 'topicKeys'>;
  readonly tokens: StreamTokens;
}

/** An HTTP answer to send instead of forwarding. */
export interface Refusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** One line for logs: what was refused and why. */
  readonly summary: string;
}

/** What IAM decided; `streamArn` is the stream a stream request reads, to learn its answer's tokens. */
export type IamVerdict = { readonly allowed: true; readonly streamArn?: string } | { readonly allowed: false; readonly refusal: Refusal };

/** Every request reaches AWS over TLS; the queue policies' `aws:SecureTransport` deny must not fire locally. */
const CONTEXT = { 'aws:SecureTransport': 'true' } as const;

export class IamGuard {
  private readonly lookups: PermissionLookups;

  public constructor(private readonly options: IamGuardOptions) {
    this.lookups = { ...options.lookups, streamArnOfToken: (token) => options.tokens.streamOf(token), topicKeys: options.policies.topicKeys };
  }

  /** Decides a function's request. A request whose permissions cannot be worked out is refused (fail closed). */
  public check(target: RequestTarget, input: Readonly<Record<string, unknown>>, functionLogicalId: string): IamVerdict {
    const principal = this.options.principals.get(functionLogicalId);
    if (!principal) return { allowed: false, refusal: unevaluable(target, `no execution role is known for function ${functionLogicalId}`) };
    const service = target.service as AwsService;
    let permissions;
    try {
      permissions = requiredPermissions(service, target.operation, input, this.lookups);
    } catch (error) {
      if (error instanceof IamError) return { allowed: false, refusal: unevaluable(target, error.message) };
      throw error;
    }
    const result = authorize(this.options.policies, { service, principal, permissions, context: CONTEXT, protocol: target.protocol === 'query' ? WireProtocol.QUERY : WireProtocol.JSON });
    if (result.allowed) return { allowed: true, streamArn: isStream(service) ? permissions[0]?.resource : undefined };
    const { denial } = result;
    return { allowed: false, refusal: { status: denial.status, headers: denial.headers, body: denial.body, summary: `${denial.code}: ${denial.message}` } };
  }
}

function isStream(service: AwsService): boolean {
  return service === AwsService.KINESIS || service === AwsService.DYNAMODB_STREAMS;
}

/**
 * A request local mode cannot decide (an operation the evaluator does not map): refused rather
 * than let through, so that a call AWS might deny never passes here unexamined.
 */
function unevaluable(target: RequestTarget, why: string): Refusal {
  const message = `local mode refuses ${target.service}:${target.operation} because it cannot evaluate it against IAM: ${why}`;
  const body = JSON.stringify({ __type: 'AccessDeniedException', message });
  return { status: 400, headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(Buffer.byteLength(body)) }, body, summary: message };
}
