/** The report's heading: the verdict as a badge, and the run's seed, size and length. */
import type { DemoReport } from '../report';
import { escapeHtml } from './escape';

/** Whether every invariant held. */
export function passed(report: DemoReport): boolean {
  return report.violations.length === 0;
}

/** The page's `<title>`. */
export function pageTitle(report: DemoReport): string {
  return `effectively-once demo, seed ${report.seed}: ${passed(report) ? 'PASS' : 'FAIL'}`;
}

/** The `<header>` element. */
export function header(report: DemoReport): string {
  const badge = passed(report) ? '<span class="badge pass">PASS</span>' : '<span class="badge fail">FAIL</span>';
  const facts = [
    `seed ${report.seed}`,
    `${report.published.logicalEvents.toLocaleString('en-US')} logical events`,
    `${report.deliveries.total.toLocaleString('en-US')} deliveries`,
    `${(report.durationMs / 1000).toFixed(1)} s`,
    `${report.eventsPerSecond} events/s`,
  ];
  return `<header><h1>effectively-once demo ${badge}</h1><p class="meta">${escapeHtml(facts.join(' · '))}</p></header>`;
}
