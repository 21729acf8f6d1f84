/** The summary: the rows of the terminal's summary table (report.ts's summaryRows), as an HTML table. */
import { summaryRows, type DemoReport } from '../report';
import { escapeHtml } from './escape';

/** The summary section. */
export function summarySection(report: DemoReport): string {
  const rows = summaryRows(report).map(([label, value]) => summaryRow(label, value));
  return ['<section class="panel summary">', '<h2>Summary</h2>', '<table><tbody>', ...rows, '</tbody></table>', '</section>'].join('\n');
}

/** A label indented in the terminal (a DLQ, a consumer) is a nested row. */
function summaryRow(label: string, value: string): string {
  const nested = label.startsWith('  ');
  return `<tr${nested ? ' class="nested"' : ''}><th scope="row">${escapeHtml(label.trim())}</th><td>${escapeHtml(value)}</td></tr>`;
}
