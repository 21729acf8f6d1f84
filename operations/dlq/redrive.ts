/**
 * `dlq redrive`: sends a DLQ's messages back to their sources, one message at a time, and deletes
 * each only after its republish succeeded. A stop at any point loses nothing: a message is either
 * still in the DLQ, or republished and deleted, or (a crash between the two) republished and still
 * in the DLQ, so the next redrive republishes it once more, which the idempotent consumers absorb.
 *
 * A failure archive's index queue stands for the archive: its objects are redriven the same way
 * (records put back, then the object deleted), oldest first; then each announcement of an object
 * the bucket no longer holds is deleted, which brings the alarm back to OK.
 *
 * A message whose copy could outlive the dedup records of an applied copy stays in the DLQ
 * (`past-dedup-window`, dedup-window.ts) unless the options allow it. A message naming a target
 * that is not a source of this DLQ stays too (`refused`, redrive-targets.ts).
 *
 * A call AWS refuses for lack of a permission stops the run at once, naming the permission
 * (`missingPermission`): on the DLQ's first read nothing has happened, and the run throws; later,
 * the message it concerns and every one after it stay in the DLQ.
 */
import { DeleteMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { deleteArchivedObject, listArchivedObjects, readArchivedEntry } from './archive-objects';
import { clearAnnouncements, type AnnouncementSweep } from './archive-announcements';
import { entryOf, sentAt, type ArchivedEntry, type DlqEntry, type EntryKind, type MessageDlqEntry } from './entry';
import { InvalidOptionError, PermissionDeniedError, type IamPermission } from './errors';
import { describeFilter, matches, type EntryFilter } from './filter';
import { DedupWindows } from './dedup-window';
import { createPacer, type Pacer } from './pacer';
import { bucketArn, arnScopeOf, needing } from './permissions';
import { redriveEntry, type EntryOutcome, type EntryRedrive } from './redrive-entry';
import { sweep, SWEEP_DEFAULTS, Verdict, type SweepOptions } from './sweep';
import { findDlq } from './topology';
import type { DlqContext, DlqInfo } from './types';

/** The reason given for messages the filter leaves out. */
export const NOT_SELECTED = 'not selected by the filter';
/**
 * The reason given for messages that reached the DLQ after the redrive began: typically a
 * redriven message that failed again. Leaving them for the next run keeps a poison message from
 * cycling between its source and the DLQ for as long as the redrive runs.
 */
export const ARRIVED_DURING_REDRIVE = 'arrived in the DLQ after this redrive began: left for the next run';

export interface RedriveOptions {
  /** Read and report, write nothing, delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Only messages that match. @default - every message */
  readonly filter?: EntryFilter;
  /** At most this many selected messages are redriven (or fail). @default - no cap */
  readonly max?: number;
  /** At most this many messages per second. @default - no cap */
  readonly rate?: number;
  /** Called after each message. */
  readonly onMessage?: (detail: RedriveDetail) => void;
  /** How the DLQ is read (visibility timeout, long poll). */
  readonly sweep?: SweepOptions;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /**
   * Redrive messages past the dedup window too (each with a note): their copy could be processed
   * after the dedup record of an applied copy expired, and be applied twice.
   * @default false
   */
  readonly allowPastDedupWindow?: boolean;
}

/** A DLQ (name, URL, ARN, output name or unique part of a name) of the stack in `context`. */
export interface RedriveRequest extends DlqContext {
  readonly queue: string;
}

/**
 * What became of one message. `came-back` is a message that reached the DLQ after the run began
 * (typically a message this run sent, failing again): left for the next run, and not counted as
 * selected or skipped, so that one event is never counted twice in a summary.
 */
export type RedriveStatus = EntryOutcome['status'] | 'came-back';

/** What happened to one message. */
export interface RedriveDetail {
  readonly messageId: string;
  readonly kind: EntryKind;
  readonly errorType: string;
  readonly consumer?: string;
  readonly eventId?: string;
  readonly status: RedriveStatus;
  /** The queue URL, stream name or table name it went (or would go) to. */
  readonly target?: string;
  /** Messages or stream records republished (or that would be). */
  readonly records?: number;
  /** Stream records of a pointer that the stream no longer holds. */
  readonly missing?: number;
  /** Why it stayed in the DLQ, or failed. */
  readonly reason?: string;
  /** Something the operator should know about a redriven message. */
  readonly note?: string;
}

export interface RedriveResult {
  readonly queue: { readonly name: string; readonly url: string };
  readonly dryRun: boolean;
  readonly filter: string;
  /**
   * Messages the run took up: in the DLQ when it began and chosen by the filter (up to `--max`).
   * Each ends as exactly one of redriven, failed, refused, past retention, past the dedup window,
   * or skipped (a stream pointer redriven in part).
   */
  readonly selected: number;
  /** Republished and deleted from the DLQ (in a dry run: would be). */
  readonly redriven: number;
  /** Left in the DLQ: not selected by the filter, or a stream pointer redriven in part (reason in the details). */
  readonly skipped: number;
  /**
   * Reached the DLQ after the run began and seen by it (a message this run sent, failing again,
   * or a new failure): left for the next run. Not counted in `selected` or `skipped`.
   */
  readonly cameBack: number;
  /** Of `cameBack`, those carrying the event of a message this run redrove: they failed again. */
  readonly cameBackSent: number;
  /** Left in the DLQ: the republish or delete failed, or no source could be found. */
  readonly failed: number;
  /** Left in the DLQ: the message names a target that is not a source of this DLQ (reason in the details). */
  readonly refused: number;
  /** Pointers left in the DLQ because some of their records are past the stream's retention. */
  readonly pastRetention: number;
  /** Left in the DLQ: a copy could outlive the dedup record of an applied copy (reason in the details). */
  readonly pastDedupWindow: number;
  /** Sources redriven to without a dedup window check: no consumer of the stack declares a dedup TTL for them. */
  readonly uncheckedSources: readonly string[];
  /** Messages and stream records republished (or that would be). */
  readonly records: number;
  /** Why the redrive stopped before the DLQ was read to its end (`--max`, a failure). */
  readonly stoppedEarly?: string;
  /** The permission AWS refused, which stopped the run. */
  readonly missingPermission?: IamPermission;
  readonly details: readonly RedriveDetail[];
  /** A failure archive's index queue, after the objects: announcements deleted and kept. */
  readonly announcements?: AnnouncementSweep;
}

/**
 * Redrives one DLQ of the stack.
 *
 * @example
 * const result = await redriveQueue({ ...dlqContextOfLocalStack(stack), queue: 'PageViewCounterDlqUrl' }, { filter: { errorType: ['SchemaViolationError'] } });
 */
export async function redriveQueue(request: RedriveRequest, options: RedriveOptions = {}): Promise<RedriveResult> {
  validate(options);
  const dlq = findDlq(request.topology, request.queue);
  const now = options.now ?? (() => new Date());
  const windows = new DedupWindows({ ...request, now });
  const context: EntryRedrive = { ...request, dlq, dryRun: options.dryRun ?? false, now, windows, allowPastDedupWindow: options.allowPastDedupWindow ?? false, invoked: new Set() };
  const run = new RedriveRun(dlq, context, options);
  if (dlq.archive === undefined) {
    const sweepOptions = { visibilityTimeoutSeconds: visibilityFor(options.rate), ...options.sweep };
    await needing({ action: 'sqs:ReceiveMessage', resource: dlq.arn }, () => sweep(request.clients.sqs, dlq.url, (message) => run.visit(message), sweepOptions));
    return run.result();
  }
  await redriveArchive(run, context, dlq.archive.bucket);
  if (context.dryRun) return run.result();
  return withAnnouncements(run.result(), context, dlq.archive.bucket, options.sweep);
}

/** The archive's objects, oldest first, each read only when its turn comes. */
async function redriveArchive(run: RedriveRun, context: EntryRedrive, bucket: string): Promise<void> {
  const { s3 } = context.clients;
  const scope = arnScopeOf(context.topology);
  const { objects } = await needing({ action: 's3:ListBucket', resource: bucketArn(scope, bucket) }, () => listArchivedObjects(s3, bucket));
  for (const object of objects) {
    const entry = await needing({ action: 's3:GetObject', resource: bucketArn(scope, bucket, object.key) }, () => readArchivedEntry(s3, object));
    if ((await run.visitArchived(entry)) === Verdict.STOP) return;
  }
}

/** Clears the announcements of the objects redriven; a refused call ends it, and the result says which. */
async function withAnnouncements(result: RedriveResult, context: EntryRedrive, bucket: string, sweepOptions: SweepOptions | undefined): Promise<RedriveResult> {
  try {
    return { ...result, announcements: await clearAnnouncements(context.clients, context.dlq, bucket, sweepOptions) };
  } catch (error) {
    if (!(error instanceof PermissionDeniedError)) throw error;
    return { ...result, stoppedEarly: result.stoppedEarly ?? `the index queue's announcements were not cleared: ${error.message}`, missingPermission: result.missingPermission ?? error.permission };
  }
}

function validate(options: RedriveOptions): void {
  if (options.max !== undefined && (!Number.isInteger(options.max) || options.max < 1)) throw new InvalidOptionError(`--max must be a whole number >= 1 (given ${options.max})`);
  if (options.rate !== undefined && !(options.rate > 0)) throw new InvalidOptionError(`--rate must be a number of messages per second > 0 (given ${options.rate})`);
}

/** Long enough for a batch of 10 at the given rate, with room for reading a stream range. */
function visibilityFor(rate: number | undefined): number {
  return Math.max(SWEEP_DEFAULTS.visibilityTimeoutSeconds, rate ? Math.ceil(10 / rate) + 60 : 0);
}

class RedriveRun {
  private readonly details: RedriveDetail[] = [];
  private readonly pacer: Pacer;
  private attempted = 0;
  private stoppedEarly?: string;
  private missingPermission?: IamPermission;
  private readonly startedAt: number;

  public constructor(
    private readonly dlq: DlqInfo,
    private readonly context: EntryRedrive,
    private readonly options: RedriveOptions,
  ) {
    this.pacer = createPacer(options.rate);
    this.startedAt = context.now().getTime();
  }

  /** One DLQ message: redriven, then deleted from the DLQ. */
  public visit(message: Message): Promise<Verdict> {
    const entry = entryOf(message);
    return this.visitEntry(entry, Date.parse(sentAt(message)), () => this.deleteMessage(entry));
  }

  /** One archive object: its records put back, then the object deleted. */
  public visitArchived(entry: ArchivedEntry): Promise<Verdict> {
    return this.visitEntry(entry, Date.parse(entry.object.lastModified), () => this.deleteObject(entry));
  }

  private async visitEntry(entry: DlqEntry, arrivedAt: number, remove: () => Promise<void>): Promise<Verdict> {
    if (arrivedAt > this.startedAt) return this.record(entry, { status: 'came-back', reason: ARRIVED_DURING_REDRIVE }, Verdict.KEEP);
    if (!matches(entry, this.options.filter ?? {})) return this.record(entry, { status: 'skipped', reason: NOT_SELECTED }, Verdict.KEEP);
    if (this.options.max !== undefined && this.attempted >= this.options.max) return this.stop(`--max ${this.options.max} reached`);
    this.attempted += 1;
    await this.pacer.next();
    let outcome: EntryOutcome;
    try {
      outcome = await redriveEntry(entry, this.context);
    } catch (error) {
      if (error instanceof PermissionDeniedError) return this.denied(entry, error, error.message);
      this.record(entry, { status: 'failed', reason: `republish failed: ${messageOf(error)}` }, Verdict.STOP);
      return this.stop(`a republish failed: the ${this.what} stays in the ${this.where}; run the redrive again once the cause is fixed`);
    }
    return this.settle(entry, outcome, remove);
  }

  /** AWS refused a call for lack of a permission: nothing more is tried, and the result names it. */
  private denied(entry: DlqEntry, error: PermissionDeniedError, reason: string): Verdict {
    this.record(entry, { status: 'failed', reason }, Verdict.STOP);
    this.missingPermission ??= error.permission;
    const { action, resource } = error.permission;
    return this.stop(`the identity running eo dlq lacks ${action} on ${resource}: this ${this.what} and every one after it stay in the ${this.where}; grant it (\`eo dlq policy\` prints what eo dlq needs) and run the redrive again`);
  }

  /** Removes what was redriven (from the DLQ, or from the archive); anything else stays. */
  private async settle(entry: DlqEntry, outcome: EntryOutcome, remove: () => Promise<void>): Promise<Verdict> {
    if (outcome.status !== 'redriven' || this.context.dryRun) return this.record(entry, outcome, Verdict.KEEP);
    try {
      await remove();
    } catch (error) {
      const reason = `republished to ${outcome.target}, but not deleted from the ${this.where} (${messageOf(error)}): the next redrive republishes it again, which the consumers absorb`;
      if (error instanceof PermissionDeniedError) return this.denied(entry, error, reason);
      this.record(entry, { status: 'failed', reason }, Verdict.STOP);
      return this.stop(`a delete from the ${this.where} failed`);
    }
    return this.record(entry, outcome, Verdict.DONE);
  }

  private async deleteMessage(entry: MessageDlqEntry): Promise<void> {
    await needing({ action: 'sqs:DeleteMessage', resource: this.dlq.arn }, () => this.context.clients.sqs.send(new DeleteMessageCommand({ QueueUrl: this.dlq.url, ReceiptHandle: entry.message.ReceiptHandle })));
  }

  private async deleteObject(entry: ArchivedEntry): Promise<void> {
    const resource = bucketArn(arnScopeOf(this.context.topology), entry.object.bucket, entry.object.key);
    await needing({ action: 's3:DeleteObject', resource }, () => deleteArchivedObject(this.context.clients.s3, entry.object));
  }

  private get what(): string {
    return this.dlq.archive ? 'object' : 'message';
  }

  private get where(): string {
    return this.dlq.archive ? 'archive' : 'DLQ';
  }

  private record(entry: DlqEntry, outcome: EntryOutcome | { readonly status: 'came-back'; readonly reason: string }, verdict: Verdict): Verdict {
    const detail: RedriveDetail = { messageId: entry.messageId, kind: entry.kind, errorType: entry.errorType, consumer: entry.consumer, eventId: entry.eventId, ...outcome };
    this.details.push(detail);
    this.options.onMessage?.(detail);
    return verdict;
  }

  private stop(reason: string): Verdict {
    this.stoppedEarly ??= reason;
    return Verdict.STOP;
  }

  /** Messages back in the DLQ with the event of a message this run redrove (an event id is the event's identity). */
  private cameBackSent(): number {
    const sent = new Set(this.details.filter((detail) => detail.status === 'redriven' && detail.eventId !== undefined).map((detail) => detail.eventId));
    return this.details.filter((detail) => detail.status === 'came-back' && sent.has(detail.eventId)).length;
  }

  public result(): RedriveResult {
    const count = (status: RedriveStatus) => this.details.filter((detail) => detail.status === status).length;
    return {
      queue: { name: this.dlq.name, url: this.dlq.url },
      dryRun: this.context.dryRun,
      filter: describeFilter(this.options.filter ?? {}),
      selected: this.details.filter((detail) => detail.status !== 'came-back' && detail.reason !== NOT_SELECTED).length,
      redriven: count('redriven'),
      skipped: count('skipped'),
      cameBack: count('came-back'),
      cameBackSent: this.cameBackSent(),
      failed: count('failed'),
      refused: count('refused'),
      pastRetention: count('past-retention'),
      pastDedupWindow: count('past-dedup-window'),
      uncheckedSources: this.context.windows.unchecked(),
      records: this.details.reduce((sum, detail) => sum + (detail.records ?? 0), 0),
      stoppedEarly: this.stoppedEarly,
      ...(this.missingPermission && { missingPermission: this.missingPermission }),
      details: this.details,
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
