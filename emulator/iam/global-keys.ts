/**
 * The global condition keys of the requests local mode decides, and which of the others AWS leaves
 * out (IAM User Guide, "AWS global condition context keys",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html, each
 * key's "Availability"). For a role session calling a service itself, as a Lambda function does:
 *
 * - always present: `aws:CurrentTime`, `aws:EpochTime`, `aws:RequestedRegion`,
 *   `aws:SecureTransport`, `aws:UserAgent`, `aws:PrincipalAccount`, `aws:PrincipalArn` (the role's
 *   ARN), `aws:PrincipalType`, `aws:userid` (`<role id>:<session name>` for an assumed role),
 *   `aws:ViaAWSService` and `aws:PrincipalIsAWSService` (false: the principal calls itself);
 *   `aws:SourceIp` unless the request comes through a VPC endpoint; for temporary credentials,
 *   `aws:TokenIssueTime` and `aws:MultiFactorAuthPresent` (false: Lambda's session has no MFA).
 * - never present for such a call ({@link ROLE_SESSION_ABSENT}): `aws:username` (IAM users only),
 *   `aws:CalledVia*` (a service calling with the principal's credentials), `aws:Source*` of a
 *   service-to-service call, `aws:MultiFactorAuthAge`, `aws:FederatedProvider`,
 *   `aws:SourceIdentity` (Lambda sets none), the keys of service principals and of EC2 instance
 *   credentials, `aws:referer` (no browser link), and `aws:RequestTag/*` and `aws:TagKeys` (no
 *   operation local mode maps carries tags).
 * - anything else is unknown to local mode: the organization keys (`aws:PrincipalOrgID`, ...),
 *   principal and resource tags (deploy-time stack tags reach resources the template does not
 *   list them on), the VPC endpoint keys, and every service's own key that a permission does not
 *   set. A condition on one decides nothing (conditions.ts), and authorize.ts fails closed.
 */
import type { ConditionValues, RequestContext } from './types';

/** Global keys AWS does not set for a role session's own call (lower case, as lookups ask). */
export const ROLE_SESSION_ABSENT: ReadonlySet<string> = new Set(
  [
    'aws:username',
    'aws:CalledVia',
    'aws:CalledViaFirst',
    'aws:CalledViaLast',
    'aws:SourceArn',
    'aws:SourceAccount',
    'aws:SourceOrgID',
    'aws:SourceOrgPaths',
    'aws:SourceOwner',
    'aws:MultiFactorAuthAge',
    'aws:FederatedProvider',
    'aws:SourceIdentity',
    'aws:PrincipalServiceName',
    'aws:PrincipalServiceNamesList',
    'aws:Ec2InstanceSourceVpc',
    'aws:Ec2InstanceSourcePrivateIPv4',
    'aws:referer',
    'aws:TagKeys',
  ].map((key) => key.toLowerCase()),
);

/** Key families AWS does not set for a role session's own call of an operation without tags. */
const ROLE_SESSION_ABSENT_PREFIXES = ['aws:requesttag/'];

/** Whether AWS leaves `key` (lower case) out of a role session's own call: then local mode knows it is absent. */
export function absentForRoleSession(key: string): boolean {
  return ROLE_SESSION_ABSENT.has(key) || ROLE_SESSION_ABSENT_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/**
 * Keys AWS sets only for an IAM principal's request, so never for a service principal delivering
 * on behalf of a resource (SNS to a queue): user, MFA, session and tag keys.
 */
const SERVICE_DELIVERY_ABSENT: ReadonlySet<string> = new Set(
  [
    'aws:username',
    'aws:userid',
    'aws:CalledVia',
    'aws:CalledViaFirst',
    'aws:CalledViaLast',
    'aws:MultiFactorAuthAge',
    'aws:MultiFactorAuthPresent',
    'aws:TokenIssueTime',
    'aws:FederatedProvider',
    'aws:SourceIdentity',
    'aws:Ec2InstanceSourceVpc',
    'aws:Ec2InstanceSourcePrivateIPv4',
    'aws:referer',
    'aws:TagKeys',
  ].map((key) => key.toLowerCase()),
);

const SERVICE_DELIVERY_ABSENT_PREFIXES = ['aws:requesttag/', 'aws:principaltag/'];

/** Whether AWS leaves `key` (lower case) out of a service principal's delivery. */
export function absentForServiceDelivery(key: string): boolean {
  return SERVICE_DELIVERY_ABSENT.has(key) || SERVICE_DELIVERY_ABSENT_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** What the gateway knows of one request beyond its caller. */
export interface RequestKeysOptions {
  /** The Region the request was signed for (its credential scope): `aws:RequestedRegion`. */
  readonly region: string;
  /** When it arrived: `aws:CurrentTime` and `aws:EpochTime`. */
  readonly time: Date;
  /** The address it came from: `aws:SourceIp`. @default - unknown */
  readonly sourceIp?: string;
  /** Its `User-Agent` header: `aws:UserAgent`. @default '' */
  readonly userAgent?: string;
  /** Its `Referer` header: `aws:referer`. @default - absent */
  readonly referer?: string;
  /** When the caller's credentials were issued: `aws:TokenIssueTime`. @default - unknown */
  readonly tokenIssuedAt?: Date;
}

/**
 * The keys of one request that AWS takes from the request itself. `aws:SecureTransport` is true:
 * local mode speaks plain HTTP to its engines and stands in for the TLS the SDKs always use.
 * @example
 * const context = requestKeys({ region: 'us-east-1', time: new Date(), sourceIp: '127.0.0.1' });
 */
export function requestKeys(options: RequestKeysOptions): RequestContext {
  return {
    'aws:SecureTransport': 'true',
    'aws:RequestedRegion': options.region,
    'aws:CurrentTime': options.time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    'aws:EpochTime': String(Math.floor(options.time.getTime() / 1000)),
    'aws:UserAgent': options.userAgent ?? '',
    ...(options.sourceIp !== undefined && { 'aws:SourceIp': options.sourceIp }),
    ...(options.referer !== undefined && { 'aws:referer': options.referer }),
    ...(options.tokenIssuedAt !== undefined && { 'aws:TokenIssueTime': options.tokenIssuedAt.toISOString().replace(/\.\d{3}Z$/, 'Z') }),
  };
}

/** The caller's identity as IAM puts it in a role session's request context. */
export interface RoleSessionIdentity {
  readonly accountId: string;
  readonly roleArn: string;
  /** `<role id>:<session name>`, when the role's id is known. */
  readonly userId?: string;
}

/** The keys IAM sets from a role session itself. */
export function roleSessionKeys(identity: RoleSessionIdentity): ConditionValues {
  return {
    'aws:PrincipalArn': identity.roleArn,
    'aws:PrincipalAccount': identity.accountId,
    'aws:PrincipalType': 'AssumedRole',
    'aws:PrincipalIsAWSService': 'false',
    'aws:ViaAWSService': 'false',
    'aws:MultiFactorAuthPresent': 'false',
    ...(identity.userId !== undefined && { 'aws:userid': identity.userId }),
  };
}
