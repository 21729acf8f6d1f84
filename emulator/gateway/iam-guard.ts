/**
 * IAM at the gateway: a function's request is decided against its execution role's statements in
 * the template (local/iam), with the condition keys AWS would put in its context, and refused as
 * the service refuses it when they do not allow it.
 */
import { renderError, type AwsError, type RequestTarget } from '../contract';
import { authorize, AwsService, IamError, NothingToAuthorizeError, requestKeys, requiredPermissions, WireProtocol, type PermissionLookups, type RequestContext, type RolePolicies, type RolePrincipal } from '../iam';
import type { RequestOrigin } from './aws-request';
import type { StreamTokens } from './stream-tokens';

export interface IamGuardOptions {
  readonly policies: RolePolicies;
  /** The principal each function's calls are made as, by the function's logical id. */
  readonly principals: ReadonlyMap<string, RolePrincipal>;
  /** Names to ARNs, from the provisioned stack. */
  readonly lookups: Omit<PermissionLookups, 'streamArnOfToken' | 'topicKeys' | 'secretKeys'>;
  readonly tokens: StreamTokens;
  /** The clock of `aws:CurrentTime` and `aws:EpochTime`. @default () => new Date() */
  readonly now?: () => Date;
}

/** An HTTP answer to send instead of forwarding. */
export interface Refusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** One line for logs: what was refused and why. */
  readonly summary: string;
}

/**
 * What IAM decided; `streamArn` is the stream a stream request reads, to learn its answer's
 * tokens. `nothingToAuthorize`: the request names no resource (a transaction without items), so
 * the layer asks the request rules for the service's own error before it refuses.
 */
export type IamVerdict = { readonly allowed: true; readonly streamArn?: string } | { readonly allowed: false; readonly refusal: Refusal; readonly nothingToAuthorize?: boolean };

/** What the guard reads of a request: its input, and where it came from. */
export interface GuardedRequest {
  readonly input: Readonly<Record<string, unknown>>;
  readonly origin: RequestOrigin;
}

export class IamGuard {
  private readonly lookups: PermissionLookups;
  private readonly now: () => Date;
  /** When the functions' credentials were issued, as far as their requests tell: `aws:TokenIssueTime`. */
  private readonly issuedAt: Date;

  public constructor(private readonly options: IamGuardOptions) {
    this.lookups = { ...options.lookups, streamArnOfToken: (token) => options.tokens.streamOf(token), topicKeys: options.policies.topicKeys, secretKeys: options.policies.secretKeys };
    this.now = options.now ?? (() => new Date());
    this.issuedAt = this.now();
  }

  /** Decides a function's request. A request whose permissions cannot be worked out is refused (fail closed). */
  public check(target: RequestTarget, request: GuardedRequest, functionLogicalId: string): IamVerdict {
    const principal = this.options.principals.get(functionLogicalId);
    if (!principal) return { allowed: false, refusal: unevaluable(target, `no execution role is known for function ${functionLogicalId}`) };
    const service = target.service as AwsService;
    try {
      const permissions = requiredPermissions(service, target.operation, request.input, this.lookups);
      const result = authorize(this.options.policies, { service, principal, permissions, context: this.contextOf(request.origin), protocol: target.protocol === 'query' ? WireProtocol.QUERY : WireProtocol.JSON });
      if (result.allowed) return { allowed: true, streamArn: isStream(service) ? permissions[0]?.resource : undefined };
      const { denial } = result;
      return { allowed: false, refusal: { status: denial.status, headers: denial.headers, body: denial.body, summary: `${denial.code}: ${denial.message}` } };
    } catch (error) {
      if (error instanceof NothingToAuthorizeError) return { allowed: false, refusal: unevaluable(target, 'the request names no resource to authorize'), nothingToAuthorize: true };
      if (error instanceof IamError) return { allowed: false, refusal: unevaluable(target, error.message) };
      throw error;
    }
  }

  /** The keys AWS takes from the request itself; the role session's are authorize's. */
  private contextOf(origin: RequestOrigin): RequestContext {
    return requestKeys({ region: origin.region ?? this.lookups.region, time: this.now(), sourceIp: origin.sourceIp, userAgent: origin.userAgent, referer: origin.referer, tokenIssuedAt: this.issuedAt });
  }
}

function isStream(service: AwsService): boolean {
  return service === AwsService.KINESIS || service === AwsService.DYNAMODB_STREAMS;
}

/**
 * A request local mode cannot decide (an operation the evaluator does not map, a resource it
 * cannot name, a condition operator it does not implement): refused rather than let through, so that a call AWS might deny never passes here
 * unexamined, with the code and status the service denies with.
 */
function unevaluable(target: RequestTarget, why: string): Refusal {
  const message = `local mode refuses ${target.service}:${target.operation} because it cannot evaluate it against IAM: ${why}`;
  return { ...renderError(target.protocol, accessDenied(target.service, message)), summary: message };
}

/** Each service's access-denied error (the codes and statuses of emulator/iam/denial.ts). */
function accessDenied(service: RequestTarget['service'], message: string): AwsError {
  const base = { rule: 'iam', message, fault: 'Sender', jsonType: 'com.amazon.coral.service#AccessDeniedException', messageKey: 'message' } as const;
  switch (service) {
    case 'sqs':
      return { ...base, code: 'AccessDenied', status: 403, queryErrorHeader: 'AccessDenied;Sender' };
    case 'sns':
      return { ...base, code: 'AuthorizationError', status: 403 };
    case 's3':
      return { ...base, code: 'AccessDenied', status: 403 };
    case 'lambda':
    case 'rds-data':
      return { ...base, code: 'AccessDeniedException', status: 403 };
    default:
      return { ...base, code: 'AccessDeniedException', status: 400, messageKey: service === 'kinesis' ? 'message' : 'Message' };
  }
}
