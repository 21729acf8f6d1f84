/** Errors of the IAM evaluator. Each one fails closed: nothing it stands for is ever allowed. */

/** Base class of every error the evaluator throws. */
export class IamError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IamError';
  }
}

/** A policy of the template that the evaluator cannot read as IAM would. */
export class PolicyDocumentError extends IamError {
  public constructor(
    public readonly policy: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`policy ${policy}: ${detail}`, options);
    this.name = 'PolicyDocumentError';
  }
}

/** A role lists a managed policy the built-in catalog does not hold: its statements are unknown. */
export class UnknownManagedPolicyError extends IamError {
  public constructor(
    public readonly policyArn: string,
    public readonly role: string,
    known: readonly string[],
  ) {
    super(`role ${role} uses managed policy ${policyArn}, which local mode does not know (known: ${known.join(', ')}); add it to emulator/iam/managed-policies.ts`);
    this.name = 'UnknownManagedPolicyError';
  }
}

/** A role or function logical id the template does not declare (or whose role it does not declare). */
export class UnknownRoleError extends IamError {
  public constructor(
    public readonly id: string,
    detail: string,
  ) {
    super(`${id}: ${detail}`);
    this.name = 'UnknownRoleError';
  }
}

/**
 * A statement that decides the request has a condition operator the evaluator does not
 * implement. The request is refused with this error rather than decided without the condition.
 */
export class UnsupportedConditionOperatorError extends IamError {
  public constructor(
    public readonly operator: string,
    public readonly policy: string,
  ) {
    super(`condition operator ${operator} (in ${policy}) is not implemented by local mode's IAM evaluator; the request is refused`);
    this.name = 'UnsupportedConditionOperatorError';
  }
}

/** A request whose service or operation the evaluator does not map to IAM actions. */
export class UnsupportedOperationError extends IamError {
  public constructor(
    public readonly service: string,
    public readonly operation: string,
  ) {
    super(`local mode does not know which IAM actions ${service} ${operation} needs; the request is refused`);
    this.name = 'UnsupportedOperationError';
  }
}

/** A request that does not say which resource it acts on (a missing parameter, an unknown shard iterator). */
export class UnknownResourceError extends IamError {
  public constructor(
    public readonly service: string,
    public readonly operation: string,
    detail: string,
  ) {
    super(`${service} ${operation}: ${detail}; the request is refused`);
    this.name = 'UnknownResourceError';
  }
}

/**
 * A request that names nothing to authorize (a transaction without items, a batch without
 * tables): never allowed by default. The contract layer answers it with the service's validation
 * error when a request rule has one, and refuses it otherwise.
 */
export class NothingToAuthorizeError extends IamError {
  public constructor(
    public readonly service: string,
    public readonly operation?: string,
  ) {
    super(`${service}${operation === undefined ? '' : ` ${operation}`}: the request names no resource to authorize; the request is refused`);
    this.name = 'NothingToAuthorizeError';
  }
}
