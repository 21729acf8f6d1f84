/**
 * Human output of the `dlq` commands: tables first, then what needs a reader's attention. Whatever
 * a message brought (its error, body, event id, consumer, source, a reason quoting any of them) is
 * shown {@link printable}: table cells are, by the table; the lines here say so where they use it.
 */
import type { ArchivedBatchReport, FailureGroup, Inspection, RangeReport } from '../dlq/inspect';
import type { DlqListing } from '../dlq/list';
import { ARRIVED_DURING_REDRIVE, NOT_SELECTED, type RedriveDetail, type RedriveResult } from '../dlq/redrive';
import { ALLOW_PAST_DEDUP_WINDOW_FLAG } from '../dlq/redrive-entry';
import type { AnnouncementSweep } from '../dlq/archive-announcements';
import type { ArchiveRef, DlqSource } from '../dlq/types';
import { formatDuration, renderTable, shortName, shortTime } from '../../cli/table';
import { printable } from '../../cli/terminal-text';

/** Details listed under a redrive summary; the rest are counted (`--json` prints them all). */
const DETAIL_LINES = 20;

/** `queue <name>`, `stream <name>`, `table <name>` or `schedule <name>`. */
export function sourceLabel(arn: string): string {
  const table = /:table\/([^/]+)/.exec(arn)?.[1];
  if (table) return `table ${table}`;
  if (arn.includes(':scheduler:') || !arn.startsWith('arn:')) return `schedule ${shortName(arn)}`;
  if (arn.includes(':kinesis:')) return `stream ${shortName(arn)}`;
  return `queue ${shortName(arn)}`;
}

function sources(list: readonly DlqSource[], archive?: ArchiveRef): string {
  const fedBy = list.map((source) => `${source.role}: ${sourceLabel(source.arn)}`).join(', ') || '-';
  return archive ? `${fedBy}, kept in s3://${archive.bucket}` : fedBy;
}

/** A DLQ's depth; a failure archive's objects, and their announcements when those differ. */
function depthCell(dlq: DlqListing): string {
  if (dlq.archivedObjects === undefined) return String(dlq.visible);
  const objects = `${dlq.archivedObjects}${dlq.truncated ? '+' : ''} object(s)`;
  return dlq.visible === dlq.archivedObjects ? objects : `${objects}, ${dlq.visible} announced`;
}

export function formatListing(label: string, listings: readonly DlqListing[]): string {
  const rows = listings.map((dlq) => [
    dlq.name,
    sources(dlq.sources, dlq.archive),
    depthCell(dlq),
    String(dlq.inFlight),
    dlq.oldestAgeSeconds === undefined ? '-' : `${dlq.truncated ? '>= ' : ''}${formatDuration(dlq.oldestAgeSeconds)}`,
  ]);
  const waiting = listings.filter((dlq) => dlq.visible > 0 || (dlq.archivedObjects ?? 0) > 0).length;
  const verdict = waiting === 0 ? 'All dead-letter queues are empty.' : `${waiting} dead-letter queue(s) hold messages: \`eo dlq inspect <queue>\` shows why.`;
  return [`Dead-letter queues of ${label}`, renderTable(['queue', 'fed by', 'messages', 'in flight', 'oldest'], rows), verdict].join('\n');
}

export function formatInspection(label: string, inspection: Inspection): string {
  const { queue } = inspection;
  const unit = queue.archive ? 'archived batch(es)' : 'message(s)';
  const lines = [`${queue.name} of ${label}: ${inspection.total}${inspection.truncated ? '+' : ''} ${unit}; fed by ${sources(queue.sources, queue.archive)}`];
  if (inspection.total === 0) return [...lines, 'Nothing to triage.'].join('\n');
  lines.push('', 'Failures by error type and consumer', groupTable(inspection.groups), ...appliedLines(inspection), '', 'One example of each', ...inspection.groups.flatMap(exampleLines));
  if (inspection.ranges.length > 0) lines.push('', 'Stream ranges (on-failure pointers: read back from the stream)', rangeTable(inspection.ranges), ...rangeWarnings(inspection.ranges));
  if (inspection.archived.length > 0) lines.push('', 'Archived batches (the records, read from the objects)', ...inspection.archived.flatMap(archivedLines));
  return lines.join('\n');
}

/** Records shown per archived batch; `--json` has them all. */
const ARCHIVED_RECORD_LINES = 5;

function archivedLines(batch: ArchivedBatchReport): string[] {
  const head = printable(`${batch.key} (${batch.condition}, ${batch.consumer ?? 'no function named'}, ${shortTime(batch.failedAt)})`);
  if (batch.problem) return [head, `  ! ${printable(batch.problem)}`];
  const rows = batch.records.slice(0, ARCHIVED_RECORD_LINES).map((record) => [record.sequenceNumber ?? '-', record.key ?? '-', record.eventId ?? '-', record.body]);
  const more = batch.records.length > ARCHIVED_RECORD_LINES ? [`  ... and ${batch.records.length - ARCHIVED_RECORD_LINES} more record(s)`] : [];
  return [head, renderTable(['sequence number', 'key', 'event id', 'body'], rows), ...more];
}

function groupTable(groups: readonly FailureGroup[]): string {
  const rows = groups.map((group) => [group.errorType, group.consumer ?? '-', group.kind, String(group.count), String(group.distinct), String(group.applied), shortTime(group.firstSeen), shortTime(group.lastSeen)]);
  return renderTable(['error type', 'consumer', 'kind', 'messages', 'distinct', 'already applied', 'first seen', 'last seen'], rows);
}

/** The messages whose event was applied already, each labelled; why some could not be looked up. */
function appliedLines(inspection: Inspection): string[] {
  const { alreadyApplied, appliedCheckProblems } = inspection;
  const problems = appliedCheckProblems.map((problem) => `! not labelled: ${printable(problem)}`);
  if (alreadyApplied.length === 0) return problems.length > 0 ? ['', ...problems] : [];
  const shown = alreadyApplied.slice(0, DETAIL_LINES).map((event) => `  already applied  ${printable(`${event.messageId}  ${event.errorType}: event ${event.eventId}, dedup record ${event.consumer}#${event.eventId} in ${event.table}`)}`);
  const more = alreadyApplied.length > DETAIL_LINES ? [`  ... and ${alreadyApplied.length - DETAIL_LINES} more (--json lists them all)`] : [];
  const verdict = `${alreadyApplied.length} message(s) hold an event that was applied already (its consumer's dedup record exists): a redrive of them changes nothing. See docs/operations.md, "Already applied".`;
  return ['', verdict, ...shown, ...more, ...problems];
}

/** A field of an example: a value of several lines (a stack, a body) goes on as many, indented. */
function exampleField(name: string, value: string | number | undefined): string[] {
  if (value === undefined || value === '') return [];
  return [`  ${name.padEnd(9)} ${String(value).split('\n').map(printable).join('\n            ')}`];
}

function exampleLines(group: FailureGroup): string[] {
  const { example } = group;
  return [
    `${printable(`${group.errorType} (${group.consumer ?? 'no consumer named'})`)}, ${group.count} message(s):`,
    ...exampleField('message', example.message),
    ...exampleField('event', [example.eventType, example.eventId].filter(Boolean).join(' ')),
    ...exampleField('reason', example.reason),
    ...exampleField('attempts', example.attempts),
    ...exampleField('source', example.source),
    ...exampleField('original', example.original),
    ...exampleField('stack', example.stack),
    ...exampleField('dlq msg', example.messageId),
  ];
}

function rangeTable(ranges: readonly RangeReport[]): string {
  const rows = ranges.map((range) => [range.shardId, `${range.startSequenceNumber}..${range.endSequenceNumber}`, String(range.batchSize), String(range.readable), String(range.missing), range.status, shortTime(range.firstArrival)]);
  return renderTable(['shard', 'sequence range', 'records', 'readable', 'missing', 'status', 'first arrival'], rows);
}

function rangeWarnings(ranges: readonly RangeReport[]): string[] {
  return ranges.filter((range) => range.reason).map((range) => `! ${printable(range.reason ?? '')}`);
}

export function formatRedrive(label: string, result: RedriveResult): string {
  const title = `${result.dryRun ? 'Dry run of a redrive' : 'Redrive'} of ${result.queue.name} (${label})${result.filter ? `, filter ${result.filter}` : ''}`;
  const verb = result.dryRun ? 'would be ' : '';
  const table = renderTable(['outcome', 'messages'], [
    [result.filter ? 'selected by the filter' : 'selected', String(result.selected)],
    [`${verb}redriven (republished, then deleted)`, String(result.redriven)],
    ['came back during the run (left for the next run)', String(result.cameBack)],
    [`skipped: ${result.filter ? 'not selected, ' : ''}left in the DLQ`, String(result.skipped)],
    ['failed (left in the DLQ)', String(result.failed)],
    ['refused: target not a source (left in the DLQ)', String(result.refused)],
    ['past stream retention (left in the DLQ)', String(result.pastRetention)],
    ['past the dedup window (left in the DLQ)', String(result.pastDedupWindow)],
    [`records ${verb}republished`, String(result.records)],
  ]);
  const lines = [title, table];
  if (result.announcements) lines.push(announcementLine(result.announcements));
  if (result.stoppedEarly) lines.push(`Stopped early: ${printable(result.stoppedEarly)}.`);
  const notSelected = result.details.filter((detail) => detail.reason === NOT_SELECTED).length;
  if (result.refused > 0) lines.push(`${result.refused} message(s) name a target that is not a source of this DLQ, and were left in it: nothing was sent. Whoever can send to the DLQ can write such a message; see who sent each (below), then delete it (docs/operations.md, section 9).`);
  if (result.pastDedupWindow > 0) lines.push(`${result.pastDedupWindow} message(s) past the dedup window were left in the DLQ: a copy could be applied twice (reasons below). Check each event's effect, then run again with ${ALLOW_PAST_DEDUP_WINDOW_FLAG}, or delete them.`);
  if (result.uncheckedSources.length > 0) lines.push(`Not checked against a dedup window (no consumer of the stack declares DEDUP_TTL_SECONDS for them): ${printable(result.uncheckedSources.map(sourceLabel).join(', '))}.`);
  if (notSelected > 0) lines.push(`${notSelected} message(s) not selected by the filter were left as they were.`);
  if (result.cameBack > 0) lines.push(`${result.cameBack} message(s) came back during the run, ${result.cameBackSent} of them an event this run sent (it failed again; the others are new failures): left for the next run.`);
  const routine = new Set([NOT_SELECTED, ARRIVED_DURING_REDRIVE]);
  lines.push(...detailLines(result.details.filter((detail) => (detail.status !== 'redriven' || detail.note) && !routine.has(detail.reason ?? ''))));
  if (result.dryRun) lines.push('Nothing was changed. Run again without --dry-run to redrive.');
  return lines.join('\n');
}

function announcementLine(sweep: AnnouncementSweep): string {
  const odd = sweep.unrecognized > 0 ? `; ${sweep.unrecognized} message(s) in the index queue announce no object of this archive and were left for a look` : '';
  return `Index queue: ${sweep.deleted} announcement(s) of redriven objects deleted, ${sweep.kept} of objects still archived kept${odd}.`;
}

function detailLines(details: readonly RedriveDetail[]): string[] {
  if (details.length === 0) return [];
  const shown = details.slice(0, DETAIL_LINES).map((detail) => `  ${detail.status.padEnd(17)} ${printable(`${detail.messageId}  ${detail.errorType}${detail.consumer ? ` (${detail.consumer})` : ''}: ${detail.reason ?? detail.note ?? ''}`)}`);
  const more = details.length > DETAIL_LINES ? [`  ... and ${details.length - DETAIL_LINES} more (--json lists them all)`] : [];
  return ['Messages that need a look:', ...shown, ...more];
}
