/**
 * Reading a demo HTML report back from headless Chromium: what its script drew (charts, their
 * series' points, the alarm strips, the invariants), and whether the browser tests run at all.
 */
import { findChromium } from '../../tools/browser/chromium';

/** What the page drew, as {@link READ_DRAWN_PAGE} reads it. */
export interface DrawnPage {
  readonly charts: { consumer: string; viewBox: number[]; ticks: number; phases: number; legend: number; series: { series: string; points: number[][] }[] }[];
  readonly strips: { consumer: string; rows: { alarm: string; evaluated: string; states: string[]; text: string }[] }[];
  readonly invariants: { invariant: string; held: boolean; verdict: string }[];
}

/** An expression for `HeadlessPage.evaluate` that reads what the page drew. */
export const READ_DRAWN_PAGE = String.raw`(() => {
  const all = (root, selector) => Array.from(root.querySelectorAll(selector));
  return {
    charts: all(document, 'svg.chart').map((svg) => ({
      consumer: svg.dataset.consumer,
      viewBox: svg.getAttribute('viewBox').split(' ').map(Number),
      ticks: all(svg, '.axis text').length,
      phases: all(svg, '.phase line').length,
      legend: all(svg, '.legend-item').length,
      series: all(svg, 'polyline.series').map((line) => ({ series: line.dataset.series, points: line.getAttribute('points').trim().split(/\s+/).map((pair) => pair.split(',').map(Number)) })),
    })),
    strips: all(document, 'svg.alarm-strip').map((svg) => ({
      consumer: svg.dataset.consumer,
      rows: all(svg, 'g.alarm-row').map((row) => ({ alarm: row.dataset.alarm, evaluated: row.dataset.evaluated, states: all(row, 'rect.state').map((rect) => rect.getAttribute('class')), text: row.textContent })),
    })),
    invariants: all(document, 'tr.invariant').map((row) => ({ invariant: row.querySelector('td').firstChild.textContent, held: row.dataset.held === 'true', verdict: row.querySelector('.verdict').textContent })),
  };
})()`;

/**
 * Whether the browser tests run: when a Chromium is found, or when EO_REQUIRE_CHROMIUM says one
 * must be (CI), so that a missing browser fails them there. Otherwise they skip, saying why.
 */
export function browserTestsOr(testFile: string): boolean {
  const run = findChromium() !== undefined || Boolean(process.env.EO_REQUIRE_CHROMIUM);
  if (!run) console.warn(`${testFile}: skipping the browser tests: no Chromium found (set CHROMIUM_PATH, or install chromium; EO_REQUIRE_CHROMIUM=1 makes this a failure)`);
  return run;
}
