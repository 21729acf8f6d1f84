/** Shared vocabulary of the IAM evaluator. */

/** One IAM action on one resource, the unit AWS authorizes: `dynamodb:PutItem` on a table ARN. */
export interface Permission {
  readonly action: string;
  readonly resource: string;
  /**
   * Condition keys that hold for this permission only, over the request's: the S3 request's own
   * keys, or the keys of a call a service makes on the caller's behalf (SNS asking KMS for a data
   * key). @default - the request's context alone
   */
  readonly context?: ConditionValues;
}

/**
 * Values of condition keys. Key names are case-insensitive, as in IAM; every value is a string
 * (IAM compares numbers and booleans as their text), a list for a multivalued key, or `null` for
 * a key that AWS does not put in this request's context (known to be absent, not unknown).
 */
export type ConditionValues = Readonly<Record<string, string | readonly string[] | null>>;

/**
 * What the contract layer knows about one request. `aws:SecureTransport` must be given: local
 * mode speaks plain HTTP to its engines, so the contract layer stands in for TLS and says `'true'`
 * for every request that would travel over HTTPS on AWS (the SDKs always do).
 */
export type RequestContext = ConditionValues & { readonly 'aws:SecureTransport': 'true' | 'false' };

/** A statement's effect. */
export const Effect = { ALLOW: 'Allow', DENY: 'Deny' } as const;
export type Effect = (typeof Effect)[keyof typeof Effect];

/** The kind of policy a decision came from, in AWS's words. */
export const PolicyType = { IDENTITY: 'identity-based', RESOURCE: 'resource-based' } as const;
export type PolicyType = (typeof PolicyType)[keyof typeof PolicyType];

/** Why a request is refused. */
export const DenyReason = { NO_ALLOW: 'no-allow', EXPLICIT_DENY: 'explicit-deny' } as const;
export type DenyReason = (typeof DenyReason)[keyof typeof DenyReason];

/** The services whose requests the evaluator maps and whose denials it words. */
export const AwsService = {
  SQS: 'sqs',
  DYNAMODB: 'dynamodb',
  DYNAMODB_STREAMS: 'dynamodb-streams',
  KINESIS: 'kinesis',
  SNS: 'sns',
  KMS: 'kms',
  S3: 's3',
  LAMBDA: 'lambda',
  RDS_DATA: 'rds-data',
} as const;
export type AwsService = (typeof AwsService)[keyof typeof AwsService];

/**
 * The caller: a session of an execution role. Lambda names the session after the function, so
 * the ARN in AWS's messages is `arn:aws:sts::<account>:assumed-role/<role name>/<function name>`.
 */
export interface RolePrincipal {
  /** The role's logical id in the template: its identity-based policies apply. */
  readonly roleLogicalId: string;
  /** The role's physical name, as it appears in the role's ARN. */
  readonly roleName: string;
  /** The role session's name: the function's name for a Lambda function. */
  readonly sessionName: string;
  /** The role's unique id (`AROA...`), the first half of `aws:userid`. @default - `aws:userid` is unknown */
  readonly roleId?: string;
  readonly accountId: string;
  /** @default 'aws' */
  readonly partition?: string;
}

/** Where a statement came from, for messages and debugging. */
export interface StatementOrigin {
  /** The policy: a logical id, `<role>/<inline policy name>`, or an AWS managed policy's name. */
  readonly policy: string;
  /** The statement's index in its policy. */
  readonly index: number;
  readonly sid?: string;
}

/**
 * Resolves a template value (string, intrinsic, array or object) to plain values, e.g.
 * `(value) => resolveValue(value, context)` with aws/cloudformation/intrinsics.ts. It throws for what it
 * cannot resolve.
 */
export type Resolve = (value: unknown) => unknown;

/** A part of a policy the evaluator set aside, always so that it grants less (see policy-document.ts). */
export interface CompileNote {
  readonly origin: StatementOrigin;
  /** The element: `Resource`, `NotResource`, `Principal`, `NotPrincipal`, `Condition`. */
  readonly element: string;
  readonly value: unknown;
  /** What the evaluator did with it and why. */
  readonly detail: string;
}
