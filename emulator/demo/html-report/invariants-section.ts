/**
 * The invariants with their verdicts. A report without verdicts (written before they were kept)
 * has only the failed invariants' sentences: those are listed, or one line saying none failed.
 */
import type { DemoReport, InvariantVerdict } from '../report';
import { escapeHtml } from './escape';

/** The invariants section. */
export function invariantsSection(report: DemoReport): string {
  const verdicts = report.invariants ?? verdictsOfViolations(report.violations);
  const failed = verdicts.filter((verdict) => !verdict.held).length;
  return [
    '<section class="panel invariants">',
    `<h2>Invariants <span class="muted">${verdicts.length - failed} held, ${failed} failed</span></h2>`,
    report.invariants ? '' : '<p class="caption">This report names only the invariants that failed.</p>',
    '<table><thead><tr><th>Invariant</th><th>Verdict</th></tr></thead><tbody>',
    ...verdicts.map(verdictRow),
    '</tbody></table>',
    '</section>',
  ].join('\n');
}

function verdictsOfViolations(violations: readonly string[]): InvariantVerdict[] {
  if (violations.length === 0) return [{ invariant: 'every invariant the run checked', held: true }];
  return violations.map((violation) => ({ invariant: violation, held: false }));
}

function verdictRow(verdict: InvariantVerdict): string {
  const detail = verdict.detail ? `<span class="detail">${escapeHtml(verdict.detail)}</span>` : '';
  const outcome = verdict.held ? 'held' : 'failed';
  return `<tr class="invariant" data-held="${verdict.held}"><td>${escapeHtml(verdict.invariant)}${detail}</td><td class="verdict ${outcome}">${outcome}</td></tr>`;
}
