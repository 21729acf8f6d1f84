/** Errors of the DLQ operations; each message says what to do next. */

/** Base class: the CLI prints the message and exits non-zero. */
export class DlqOperationError extends Error {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DlqOperationError';
  }
}

/** No AWS credentials or region could be found. */
export class MissingCredentialsError extends DlqOperationError {
  public constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `${detail}. Set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and AWS_REGION, ` +
        'or run against the local engines: start them with `npx eo local up` and add --local.',
      options,
    );
    this.name = 'MissingCredentialsError';
  }
}

/** `--local` was given but no local stack is running. */
export class LocalStackNotRunningError extends DlqOperationError {
  public constructor(detail: string) {
    super(`${detail}. Start the local stack first: \`npx eo local up\` (it keeps running until Ctrl-C), then run this command with --local in another terminal.`);
    this.name = 'LocalStackNotRunningError';
  }
}

/** The stack could not be found or read. */
export class StackNotFoundError extends DlqOperationError {
  public constructor(stackName: string, region: string, options?: { cause?: unknown }) {
    super(`stack ${stackName} was not found in ${region}: deploy it (\`npx cdk deploy\`), or name another one with --stack`, options);
    this.name = 'StackNotFoundError';
  }
}

/** The queue argument names no dead-letter queue of the stack. */
export class UnknownQueueError extends DlqOperationError {
  public constructor(query: string, known: readonly string[]) {
    super(`"${query}" is not a dead-letter queue of the stack; give a name, URL, ARN, output name or a unique part of a name: ${known.join(', ') || '(the stack has none)'}`);
    this.name = 'UnknownQueueError';
  }
}

/** Bad option values (filters, rates, caps). */
export class InvalidOptionError extends DlqOperationError {
  public constructor(message: string) {
    super(message);
    this.name = 'InvalidOptionError';
  }
}

/** A DLQ message whose content cannot be redriven as it is (a broken body, an ARN of no known kind). */
export class MalformedEntryError extends DlqOperationError {
  public constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MalformedEntryError';
  }
}

/** The reason given for a message whose target is not a source of the DLQ being redriven. */
export const NOT_A_SOURCE = 'target not a source of this DLQ';

/**
 * A DLQ message names a target (a queue, a stream, a table's stream) that the stack's topology does
 * not link to the DLQ being redriven: nothing is sent, and the message stays where it is.
 */
export class TargetNotASourceError extends DlqOperationError {
  /**
   * @param target the ARN the message names
   * @param detail why it is not one, and what the sources are
   */
  public constructor(
    public readonly target: string,
    detail: string,
  ) {
    super(`${NOT_A_SOURCE}: ${target} (${detail}); nothing was sent, the message stays in the DLQ`);
    this.name = 'TargetNotASourceError';
  }
}

/** An IAM action and the resource it is authorized on. */
export interface IamPermission {
  /** `sqs:SendMessage`. */
  readonly action: string;
  /** The ARN it is asked on. */
  readonly resource: string;
}

/** AWS refused a call for lack of a permission: the command stops there and says which one. */
export class PermissionDeniedError extends DlqOperationError {
  public constructor(
    public readonly permission: IamPermission,
    options: { readonly cause: unknown },
  ) {
    const said = options.cause instanceof Error ? ` (${options.cause.name}: ${options.cause.message})` : '';
    super(`the identity running eo dlq lacks ${permission.action} on ${permission.resource}${said}: grant it; \`eo dlq policy\` prints every permission eo dlq needs on this stack (docs/operations.md, "Permissions")`, options);
    this.name = 'PermissionDeniedError';
  }
}
