/**
 * What a contract rule returns: the request may go on to the engine, or AWS would have refused
 * it with `error`. An `AwsError` holds everything each wire protocol needs to render the refusal
 * as AWS does (see `render.ts`), so the rules never deal with HTTP.
 */

/** Who AWS blames: `Sender` (a 4xx the client can fix) or `Receiver` (a 5xx). */
export type AwsFault = 'Sender' | 'Receiver';

/** An error as AWS returns it, independent of the wire protocol that carries it. */
export interface AwsError {
  /** The contract rule that refused the request, e.g. `sqs.message-attributes.count`. */
  readonly rule: string;
  /**
   * The code a client sees: the SDK error's `name` and the query protocol's `<Code>`, e.g.
   * `InvalidParameterValue`, `AWS.SimpleQueueService.BatchEntryIdsNotDistinct`,
   * `ValidationException`.
   */
  readonly code: string;
  readonly message: string;
  /** HTTP status. */
  readonly status: number;
  readonly fault: AwsFault;
  /** `__type` of an AWS JSON error body, e.g. `com.amazonaws.sqs#BatchEntryIdsNotDistinct`. */
  readonly jsonType: string;
  /** Key of the message in a JSON body: DynamoDB writes `Message`, SQS and Kinesis `message`. */
  readonly messageKey: 'message' | 'Message';
  /**
   * SQS only (an `awsQueryCompatible` service): the `x-amzn-query-error` header, `<code>;<fault>`,
   * from which the SDK takes the error's name.
   */
  readonly queryErrorHeader?: string;
  /** More members of the JSON body, e.g. DynamoDB's `CancellationReasons`. */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** The verdict of a rule, or of every rule for one request. */
export type CheckResult = { readonly ok: true } | { readonly ok: false; readonly error: AwsError };

/** The request passes. */
export const OK: CheckResult = { ok: true };

/** The request fails with `error`. */
export function fail(error: AwsError): CheckResult {
  return { ok: false, error };
}

/** The first failing check, in order, or `OK`; later checks do not run once one fails. */
export function firstFailure(checks: Iterable<() => CheckResult>): CheckResult {
  for (const check of checks) {
    const result = check();
    if (!result.ok) return result;
  }
  return OK;
}

/** UTF-8 bytes of `text`, as AWS counts sizes (a lone surrogate counts 3, as Node encodes it). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Bytes of a blob as the JSON protocols carry it (a base64 string) or as a CBOR or SDK caller
 * does (bytes). AWS counts the decoded bytes.
 */
export function blobBytes(blob: string | Uint8Array | undefined): number {
  if (blob === undefined) return 0;
  return typeof blob === 'string' ? Buffer.from(blob, 'base64').length : blob.length;
}
