/** The HTML report of a demo run: the summary, the invariants, and the charts over time, in one file. */
import type { DemoReport } from '../report';
import type { DemoTimeline } from '../timeline';
import { CHARTS_SCRIPT } from './charts-script';
import { chartsSection } from './charts-section';
import { header, pageTitle } from './header';
import { invariantsSection } from './invariants-section';
import { htmlPage } from './page';
import { STYLES } from './styles';
import { summarySection } from './summary-section';

/** What the page embeds as JSON, for its script to draw from. */
export interface EmbeddedDemoData {
  readonly report: DemoReport;
  readonly timeline: DemoTimeline;
}

/**
 * The full HTML document of a run's report: self-contained (inline style and script, the data
 * embedded as JSON), so it opens from a file with no network.
 * @example writeFileSync('report.html', renderHtmlReport(report, timeline));
 */
export function renderHtmlReport(report: DemoReport, timeline: DemoTimeline): string {
  const body = ['<main>', header(report), '<div class="panels">', summarySection(report), invariantsSection(report), '</div>', chartsSection(timeline), '</main>'].join('\n');
  // The timeline is embedded once, beside the report, even when the report carries it too.
  const data: EmbeddedDemoData = { report: { ...report, timeline: undefined }, timeline };
  return htmlPage({ title: pageTitle(report), body, data, style: STYLES, script: CHARTS_SCRIPT });
}
