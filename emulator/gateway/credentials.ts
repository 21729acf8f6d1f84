/**
 * Who signed a request. Each local function has credentials of its own, as each Lambda function
 * gets its execution role's; the gateway maps the access key id of a request's signature back to
 * the function, whose role's policies then decide the request. The local account's shared
 * credentials (what the demo, the tests, the CLI and a user's AWS CLI sign with) are an
 * administrator: the request rules apply to them, IAM does not.
 */
import { createHash } from 'node:crypto';
import { LOCAL_CREDENTIALS } from '../engines/account';

/** The AWS SDK's credentials. */
export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** Who a request comes from. */
export type Caller =
  | { readonly kind: 'admin' }
  | { readonly kind: 'function'; readonly functionLogicalId: string }
  /** Signed with a key the gateway does not know: AWS answers `UnrecognizedClientException`. */
  | { readonly kind: 'unknown'; readonly accessKeyId?: string };

/**
 * The credentials of one local function: an access key id derived from its logical id (stable
 * across runs, distinct per function), so that a log line or a denial names who called.
 */
export function functionCredentials(functionLogicalId: string): LocalCredentials {
  const digest = createHash('sha256').update(functionLogicalId).digest('hex').slice(0, 12).toUpperCase();
  return { accessKeyId: `ASIALOCAL${digest}`, secretAccessKey: `local-${functionLogicalId}` };
}

/** Maps access key ids to callers. */
export class CallerDirectory {
  private readonly functions = new Map<string, string>();

  /**
   * @param unknownKeys what a key that is neither the admin's nor a function's is: refused (a
   * misconfigured client, as on AWS), or an admin (a gateway without a stack, as the tests use).
   */
  public constructor(private readonly unknownKeys: 'refuse' | 'admin' = 'refuse') {}

  /** Registers a function; returns the credentials it must sign with. */
  public register(functionLogicalId: string): LocalCredentials {
    const credentials = functionCredentials(functionLogicalId);
    this.functions.set(credentials.accessKeyId, functionLogicalId);
    return credentials;
  }

  public callerOf(accessKeyId: string | undefined): Caller {
    if (accessKeyId === LOCAL_CREDENTIALS.accessKeyId) return { kind: 'admin' };
    const functionLogicalId = accessKeyId === undefined ? undefined : this.functions.get(accessKeyId);
    if (functionLogicalId !== undefined) return { kind: 'function', functionLogicalId };
    return this.unknownKeys === 'admin' ? { kind: 'admin' } : { kind: 'unknown', accessKeyId };
  }
}
