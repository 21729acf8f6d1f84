/**
 * The AWS contract layer: every request to a local engine passes here first. In order, as AWS
 * decides a request: who signed it, what it is (a request the layer cannot classify as an
 * operation it can decide is refused, never forwarded), IAM (for a function's calls), the request
 * rules (what AWS refuses as invalid), DynamoDB's transaction conflicts; then the engine. A
 * refusal is answered in the service's own shape and never reaches the engine. Two rules need
 * state beyond a request: DynamoDB's transaction conflicts, and SQS's 12-hour cap on a received
 * message's visibility. With a latency profile, every answer, a refusal's too, waits the latency
 * drawn for its operation, counted from the request's arrival, so that the engine's own time is
 * inside it rather than added to it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  checkRequest,
  CONTRACT_SERVICES,
  isSqsBatchOperation,
  mergeFailedEntries,
  renderError,
  splitSqsBatch,
  TransactionConflictTracker,
  VisibilityBudget,
  WIRE_PROTOCOLS,
  type AwsError,
  type ContractService,
  type RequestTarget,
} from '../contract';
import { readAwsRequest, type AwsRequest, type RestApi } from './aws-request';
import { ContractCounters, type ContractStats } from './contract-stats';
import type { Caller, CallerDirectory } from './credentials';
import type { EngineFacts } from './engine-facts';
import { jsonOf, withJsonBody, type EngineAnswer } from './forward';
import type { IamGuard, Refusal } from './iam-guard';
import { LatencyModel } from './latency';
import { GATEWAY_RULES, unclassifiedRequest, unrecognizedClient } from './refusals';
import { StreamTokens } from './stream-tokens';

/** Why the layer answered a request itself: a conflict is AWS's normal behaviour under concurrency, the others are errors. */
export type RefusalKind = 'invalid' | 'iam' | 'conflict' | 'unrecognized-key' | 'unclassified';

export type RefusalListener = (line: string, kind: RefusalKind) => void;

/** How one gateway reaches its engine: `forward(request, body, asFunction)`. */
export type EngineForward = (req: IncomingMessage, body: Buffer, asFunction: boolean) => Promise<EngineAnswer>;

export interface ContractLayerOptions {
  readonly callers: CallerDirectory;
  readonly facts: EngineFacts;
  /** Told of every refusal, in one line (for the functions' log, or a test), and of its kind. @default - nothing */
  readonly onRefusal?: RefusalListener;
  /** The clock of SQS's 12-hour visibility cap (epoch ms). @default Date.now */
  readonly now?: () => number;
  /** How long each request waits before its answer. @default - no wait (the `none` profile) */
  readonly latency?: LatencyModel;
}

/** A request that passed, and what the layer must do around the engine's answer. */
interface Admitted {
  readonly body: Buffer;
  readonly asFunction: boolean;
  readonly streamArn?: string;
  readonly batchFailures?: ReturnType<typeof splitSqsBatch>['failed'];
  readonly release?: () => void;
  /** A ReceiveMessage: when it arrived, for the visibility cap of the messages it hands out. */
  readonly receivedAt?: number;
  /** How many entries of a split SQS batch go on to the engine; with none, the layer answers alone, as SQS would. */
  readonly batchForwarded?: number;
}

interface Refused {
  readonly refusal: Refusal;
  readonly kind: RefusalKind;
  readonly release?: undefined;
}

/** What the layer sends: the engine's answer (or its own, for a batch it failed whole), or a refusal. */
type Reply = Refused | { readonly answer: EngineAnswer; readonly release?: () => void };

export class ContractLayer {
  public readonly tokens = new StreamTokens();
  private readonly counters = new ContractCounters();
  private readonly conflicts: TransactionConflictTracker;
  private readonly visibility: VisibilityBudget;
  private iam: IamGuard | undefined;
  public readonly latency: LatencyModel;

  public constructor(private readonly options: ContractLayerOptions) {
    this.latency = options.latency ?? new LatencyModel();
    this.conflicts = new TransactionConflictTracker({ keySchemas: options.facts.keySchemas });
    this.visibility = new VisibilityBudget({ now: options.now });
  }

  /** From now on, function callers are decided against their roles' policies. */
  public enforceIam(guard: IamGuard): void {
    this.iam = guard;
  }

  public stats(): ContractStats {
    return this.counters.snapshot();
  }

  /**
   * Handles one HTTP request end to end.
   * @param rest the REST API of the gateway's engine, which requests without a JSON target or a form are read as
   */
  public async handle(req: IncomingMessage, res: ServerResponse, forward: EngineForward, rest: RestApi = 'none'): Promise<void> {
    const request = await readAwsRequest(req, rest);
    const roundTrip = this.latency.wait(request.target && { ...request.target, input: request.input });
    const reply = await this.reply(req, request, forward);
    try {
      await roundTrip;
      if ('refusal' in reply) this.refuse(res, reply.refusal, reply.kind);
      else send(res, reply.answer);
    } finally {
      reply.release?.();
    }
  }

  /** The answer or the refusal, and what holds items until it is sent. */
  private async reply(req: IncomingMessage, request: AwsRequest, forward: EngineForward): Promise<Reply> {
    this.counters.checked();
    const caller = this.options.callers.callerOf(request.accessKeyId);
    if (caller.kind === 'unknown') return this.refuseUnsigned(request, caller.accessKeyId);
    if (!request.target) return this.refuseUnclassified(request);
    const admitted = await this.admit(request, request.target, caller);
    if ('refusal' in admitted) return admitted;
    if (admitted.batchFailures !== undefined && admitted.batchForwarded === 0) return { answer: allEntriesFailed(admitted.batchFailures) };
    try {
      return { answer: this.afterAnswer(request.target, admitted, await forward(req, admitted.body, admitted.asFunction)), release: admitted.release };
    } catch (error) {
      admitted.release?.();
      throw error;
    }
  }

  /** An unknown key, or none: refused as the service refuses an unknown key, whatever the request is. */
  private refuseUnsigned(request: AwsRequest, accessKeyId: string | undefined): Refused {
    this.counters.rejectedBy(GATEWAY_RULES.unrecognizedClient);
    return { refusal: unrecognizedClient({ ...request.shape, operation: request.target?.operation }, accessKeyId, request.line), kind: 'unrecognized-key' };
  }

  /** A request the layer cannot classify cannot be decided: refused, never forwarded (fail closed). */
  private refuseUnclassified(request: AwsRequest): Refused {
    this.counters.rejectedBy(GATEWAY_RULES.unclassified);
    return { refusal: unclassifiedRequest(request.shape, request.line), kind: 'unclassified' };
  }

  private async admit(request: AwsRequest, target: RequestTarget, caller: Exclude<Caller, { kind: 'unknown' }>): Promise<Admitted | Refused> {
    const admitted: Admitted = { body: request.body, asFunction: caller.kind === 'function' };
    if (caller.kind !== 'function' || !this.iam) return this.checkRules(request, target, admitted);
    const verdict = this.iam.check(target, request, caller.functionLogicalId);
    if (!verdict.allowed && verdict.nothingToAuthorize) return this.refuseNothingToAuthorize(request, target, admitted, verdict.refusal);
    this.counters.iamChecked(verdict.allowed);
    if (!verdict.allowed) return { refusal: verdict.refusal, kind: 'iam' };
    return this.checkRules(request, target, { ...admitted, streamArn: verdict.streamArn });
  }

  /**
   * A request that names nothing to authorize (a transaction without items) is what AWS refuses
   * as invalid: the request rules answer with the service's own error; one they pass is refused
   * all the same, since nothing can allow it.
   */
  private async refuseNothingToAuthorize(request: AwsRequest, target: RequestTarget, admitted: Admitted, refusal: Refusal): Promise<Refused> {
    const checked = await this.checkRules(request, target, admitted);
    if ('refusal' in checked) return checked;
    checked.release?.();
    this.counters.iamChecked(false);
    return { refusal, kind: 'iam' };
  }

  private async checkRules(request: AwsRequest, target: RequestTarget, admitted: Admitted): Promise<Admitted | Refused> {
    if (!isContractService(target.service)) return admitted;
    const facts = await this.options.facts.factsFor(target, request.input);
    const result = checkRequest(target.service, target.operation, request.input, facts);
    if (!result.ok) return { refusal: this.rejected(target, result.error), kind: 'invalid' };
    if (target.service === 'sqs') {
      const tracked = this.trackVisibility(target, request.input as SqsVisibilityInput, admitted);
      if ('refusal' in tracked || !isSqsBatchOperation(target.operation)) return tracked;
      return this.splitBatch(request, target.operation, tracked, facts.sqs);
    }
    if (target.service === 'dynamodb') return this.holdItems(request, target, admitted);
    return admitted;
  }

  /**
   * SQS's 12-hour visibility cap: a receive notes when it arrived, deletes forget their handles, a
   * ChangeMessageVisibility is held to the cap (a batch's entries are, in `splitBatch`).
   */
  private trackVisibility(target: RequestTarget, input: SqsVisibilityInput, admitted: Admitted): Admitted | Refused {
    switch (target.operation) {
      case 'ReceiveMessage':
        return { ...admitted, receivedAt: this.visibility.clock() };
      case 'DeleteMessage':
        this.visibility.forget(input.ReceiptHandle === undefined ? [] : [input.ReceiptHandle]);
        return admitted;
      case 'DeleteMessageBatch':
        this.visibility.forget((input.Entries ?? []).flatMap((entry) => (entry.ReceiptHandle === undefined ? [] : [entry.ReceiptHandle])));
        return admitted;
      case 'ChangeMessageVisibility': {
        const result = this.visibility.check(input.ReceiptHandle, input.VisibilityTimeout);
        return result.ok ? admitted : { refusal: this.rejected(target, result.error), kind: 'invalid' };
      }
      default:
        return admitted;
    }
  }

  /** Entries SQS would fail alone are answered as `Failed`; the rest go on. */
  private splitBatch(request: AwsRequest, operation: Parameters<typeof splitSqsBatch>[0], admitted: Admitted, facts: Parameters<typeof splitSqsBatch>[2]): Admitted {
    const split = splitSqsBatch(operation, request.input, facts, (entry) => this.visibility.check(entry.ReceiptHandle, entry.VisibilityTimeout));
    if (split.failed.length === 0) return admitted;
    for (const failure of split.failed) this.counters.rejectedBy(failure.Rule ?? 'sqs.batch.entry');
    return { ...admitted, body: Buffer.from(JSON.stringify({ ...request.input, Entries: split.forward })), batchFailures: split.failed, batchForwarded: split.forward.length };
  }

  private holdItems(request: AwsRequest, target: RequestTarget, admitted: Admitted): Admitted | Refused {
    const decision = this.conflicts.begin(target.operation, request.input);
    if (!decision.ok) {
      this.counters.conflicted(decision.error.rule);
      return { refusal: this.summarised(target, decision.error), kind: 'conflict' };
    }
    return { ...admitted, release: () => this.conflicts.end(decision.ticket) };
  }

  private afterAnswer(target: RequestTarget, admitted: Admitted, answer: EngineAnswer): EngineAnswer {
    if (admitted.streamArn === undefined && admitted.batchFailures === undefined && admitted.receivedAt === undefined) return answer;
    const json = jsonOf(answer);
    if (json === undefined) return answer;
    if (admitted.receivedAt !== undefined) this.visibility.received(receiptHandlesOf(json), admitted.receivedAt);
    this.tokens.learn(target, admitted.streamArn, json);
    return admitted.batchFailures ? withJsonBody(answer, mergeFailedEntries(json, admitted.batchFailures)) : answer;
  }

  private rejected(target: RequestTarget, error: AwsError): Refusal {
    this.counters.rejectedBy(error.rule);
    return this.summarised(target, error);
  }

  private summarised(target: RequestTarget, error: AwsError): Refusal {
    const rendered = renderError(target.protocol, error);
    return { ...rendered, summary: `${target.service}:${target.operation} refused by ${error.rule}: ${error.code}: ${error.message}` };
  }

  private refuse(res: ServerResponse, refusal: Refusal, kind: RefusalKind): void {
    this.options.onRefusal?.(refusal.summary, kind);
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
  }
}

/** The fields of SQS's visibility and delete requests the cap reads. */
interface SqsVisibilityInput {
  readonly ReceiptHandle?: string;
  readonly VisibilityTimeout?: number;
  readonly Entries?: readonly { readonly ReceiptHandle?: string }[];
}

/** The receipt handles of a ReceiveMessage answer. */
function receiptHandlesOf(answer: Readonly<Record<string, unknown>>): string[] {
  const messages = Array.isArray(answer.Messages) ? (answer.Messages as { ReceiptHandle?: unknown }[]) : [];
  return messages.flatMap((message) => (typeof message.ReceiptHandle === 'string' ? [message.ReceiptHandle] : []));
}

/** SQS's answer to a batch whose every entry failed: 200, nothing successful (an empty batch would be an error of its own). */
function allEntriesFailed(failed: NonNullable<Admitted['batchFailures']>): EngineAnswer {
  const answer: { readonly Successful: readonly unknown[]; readonly Failed?: readonly unknown[] } = { Successful: [] };
  const body = Buffer.from(JSON.stringify(mergeFailedEntries(answer, failed)));
  return { status: 200, headers: { 'content-type': WIRE_PROTOCOLS.json10, 'content-length': String(body.length), 'x-amzn-requestid': randomUUID() }, body };
}

function isContractService(service: RequestTarget['service']): service is ContractService {
  return (CONTRACT_SERVICES as readonly string[]).includes(service);
}

function send(res: ServerResponse, answer: EngineAnswer): void {
  res.writeHead(answer.status, answer.headers).end(answer.body);
}
