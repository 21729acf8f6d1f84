/**
 * The demo's HTML report (`npm run demo -- --html FILE`): the markup and the embedded data
 * without a browser, then the page in headless Chromium, where its script must draw every
 * consumer's chart and alarm strip from the data, log no error, and ask for nothing but itself.
 * The browser part skips when no Chromium is found, unless EO_REQUIRE_CHROMIUM is set (CI).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { renderHtmlReport } from '../../../emulator/demo/html-report';
import { CHARTS_SCRIPT } from '../../../emulator/demo/html-report/charts-script';
import { escapeHtml, jsonForScript } from '../../../emulator/demo/html-report/escape';
import { awsContractInvariant, failedSentences, invariantsOf, redriveInvariantsOf, summaryRows, violationsOf, type DemoReport, type InvariantVerdict } from '../../../emulator/demo/report';
import type { AlarmTimeline, ConsumerPoint, ConsumerTimeline, DemoTimeline } from '../../../emulator/demo/timeline';
import type { Verification } from '../../../emulator/demo/verify';
import { browserTestsOr, READ_DRAWN_PAGE, type DrawnPage } from '../../helpers/drawn-report';
import { openHeadlessPage, type HeadlessPage } from '../../../tools/browser/headless-page';

const PERIOD_MS = 500;
const PERIODS = 40;
const DURATION_MS = PERIODS * PERIOD_MS - 180;

/** A verification in which everything held: the first phase's, and the redrive's `after`. */
function cleanVerification(): Verification {
  return {
    effects: { exact: true, mismatches: [] },
    notifications: { expected: 120, sent: 120, exact: true, missing: [], duplicated: [], unexpected: [], pending: 0 },
    dlq: { messages: 14, withContext: 14, appliedWithoutContext: 0, copiesOfDeadLettered: 0, poison: 9, poisonPublished: 9 },
    lost: 0,
    lostExamples: [],
    alarms: { notifications: 2, alarmed: true, recoveredToOk: true },
  };
}

/** A run whose effects came out exact but whose functions were denied two calls by IAM. */
function fixtureReport(): DemoReport {
  const verification = cleanVerification();
  const redrive = { redriven: 5, remainingInDlq: 9, queues: [{ queue: 'PageViewCounterDlq', redriven: 5, remaining: 9, remainingByError: { InvalidEnvelopeError: 9 } }], exactAfter: true, alarmsConsistent: true };
  const aws = { requestsChecked: 4180, rejected: 0, iamChecks: 2210, iamDenied: 2, transactionConflicts: 31, byRule: { iam: 2 } };
  const invariants = [...invariantsOf(verification), ...redriveInvariantsOf(redrive, verification), awsContractInvariant(aws)];
  return {
    seed: 42,
    published: { logicalEvents: 1200, messages: 1262, producerRetries: 53, poison: 9 },
    deliveries: { total: 1480, duplicates: 131 },
    faults: { crashAfterCommit: 6, visibilityExpired: 3, throttled: 12, serverErrors: 4, serializationFailures: 2, duplicateBatches: 7 },
    effects: verification.effects,
    notifications: { expected: 120, sent: 120, missing: [], pending: 0 },
    dlq: { messages: 14, withContext: 14, appliedWithoutContext: 0, copiesOfDeadLettered: 0 },
    waitingForRedrive: 5,
    lost: 0,
    alarms: { notifications: 2 },
    redrive,
    consumers: [
      { name: 'page-view-counter', source: 'sns-sqs', deliveries: 930, duplicateDeliveries: 88, checked: true, exact: true, mismatches: 0 },
      { name: 'order-projection', source: 'kinesis', deliveries: 410, duplicateDeliveries: 31, checked: true, exact: true, mismatches: 0 },
      { name: 'account-ledger', source: 'sqs-fifo', deliveries: 140, duplicateDeliveries: 12, checked: true, exact: true, mismatches: 0 },
    ],
    aws,
    durationMs: DURATION_MS,
    eventsPerSecond: 61,
    violations: failedSentences(invariants),
    invariants,
  };
}

/** A burst while publishing (periods 0..9), a trickle, a second burst after the redrive (30..33); the DLQ holds from period 6 to the redrive. */
function points(scale: number, dlqHeld: number): ConsumerPoint[] {
  return Array.from({ length: PERIODS }, (_, period) => {
    const deliveries = Math.round(scale * (period < 10 ? 10 + period * 3 : period >= 30 && period < 34 ? 12 : period < 20 ? 3 : 0));
    const duplicates = Math.round(deliveries * 0.09);
    const dlqDepth = period >= 6 && period < 31 ? dlqHeld : period >= 31 ? Math.floor(dlqHeld / 2) : 0;
    return { atMs: period * PERIOD_MS, deliveries, duplicates, effects: deliveries - duplicates - (period === 7 ? 1 : 0), dlqDepth };
  });
}

function consumer(name: string, source: string, scale: number, dlqHeld: number, alarms: readonly string[]): ConsumerTimeline {
  return { name, source, points: points(scale, dlqHeld), alarms };
}

function alarm(alarmName: string, metric: string, transitions: readonly [number, AlarmTimeline['states'][number]['state']][]): AlarmTimeline {
  return { alarmName, metric, evaluated: true, states: [{ atMs: 0, state: 'INSUFFICIENT_DATA' }, ...transitions.map(([atMs, state]) => ({ atMs, state }))] };
}

function fixtureTimeline(): DemoTimeline {
  return {
    periodMs: PERIOD_MS,
    durationMs: DURATION_MS,
    consumers: [
      consumer('page-view-counter', 'sns-sqs', 2, 12, ['PageViewCounterDlqHeld', 'PageViewCounterErrors', 'PageViewCounterOldestMessage']),
      consumer('order-projection', 'kinesis', 1, 3, ['OrderProjectionDlqHeld', 'OrderProjectionIteratorAge']),
      consumer('account-ledger', 'sqs-fifo', 0.4, 0, ['AccountLedgerDlqHeld']),
    ],
    alarms: [
      alarm('PageViewCounterDlqHeld', 'visible + inFlight', [[1000, 'OK'], [3500, 'ALARM'], [15600, 'OK']]),
      { alarmName: 'PageViewCounterErrors', metric: 'AWS/Lambda Errors', evaluated: false, states: [] },
      alarm('PageViewCounterOldestMessage', 'AWS/SQS ApproximateAgeOfOldestMessage', [[1000, 'OK']]),
      alarm('OrderProjectionDlqHeld', 'visible + inFlight', [[1000, 'OK'], [4000, 'ALARM'], [16100, 'OK']]),
      alarm('OrderProjectionIteratorAge', 'AWS/Lambda IteratorAge', [[1000, 'OK'], [2500, 'ALARM'], [6000, 'OK']]),
      alarm('AccountLedgerDlqHeld', 'visible + inFlight', [[1000, 'OK']]),
    ],
    phases: [
      { atMs: 0, phase: 'publishing 1262 messages (producer retries and poison included)' },
      { atMs: 4200, phase: 'draining: functions consume until every source is quiet' },
      { atMs: 10400, phase: 'reading the state back' },
      { atMs: 14800, phase: "deploying the fix (ACCEPT_SCHEMA_V2=true) and redriving every DLQ's schema violations" },
    ],
  };
}

/** The text of the page's embedded data element. */
function embeddedJson(html: string): string {
  const match = /<script type="application\/json" id="demo-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match?.[1]) throw new Error('no demo-data element in the page');
  return match[1];
}

describe('the report\'s verdicts', () => {
  test('every invariant is listed with its verdict, and the violations are the failed ones\' sentences', () => {
    const report = fixtureReport();
    expect(report.invariants).toHaveLength(11);
    expect(report.invariants?.filter((verdict) => !verdict.held)).toEqual([expect.objectContaining({ detail: "2 calls denied by IAM: a grant is missing from a function's role (see the functions' log)" })]);
    expect(report.violations).toEqual(["2 calls denied by IAM: a grant is missing from a function's role (see the functions' log)"]);
  });

  test('a failed notification check names its orders, as violationsOf always has', () => {
    const verification = { ...cleanVerification(), notifications: { ...cleanVerification().notifications, exact: false, missing: ['o-2'], duplicated: ['o-7'] } };
    expect(invariantsOf(verification).filter((verdict) => !verdict.held).map((verdict) => verdict.invariant)).toEqual(['every shipped order is notified', 'no order is notified more than once']);
    expect(violationsOf(verification)).toEqual(['1 shipped orders were never notified (o-2)', '1 orders were notified more than once (o-7)']);
  });
});

describe('the HTML report without a browser', () => {
  test('escapes markup, and the JSON embed cannot close its script element', () => {
    expect(escapeHtml('<a href="x">O\'Neil & co</a>')).toBe('&lt;a href=&quot;x&quot;&gt;O&#39;Neil &amp; co&lt;/a&gt;');
    const value = { name: '</script><b>', note: '<!-- x -->', separator: '\u2028' };
    expect(jsonForScript(value)).not.toContain('<');
    expect(JSON.parse(jsonForScript(value))).toEqual(value);
  });

  test('a consumer named </script><b> does not break out, and the data round-trips', () => {
    const timeline = fixtureTimeline();
    const hostile = { ...timeline, consumers: [{ ...timeline.consumers[0]!, name: '</script><b>' }], phases: [{ atMs: 0, phase: '<img src=x onerror=alert(1)>' }] };
    const report = { ...fixtureReport(), consumers: [{ ...fixtureReport().consumers![0]!, name: '</script><b>' }] };
    const html = renderHtmlReport(report, hostile);
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<img');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(JSON.parse(embeddedJson(html))).toEqual({ report, timeline: hostile });
  });

  test('names the latency profile the run used, when the report has one', () => {
    expect(summaryRows({ ...fixtureReport(), latencyProfile: { name: 'aws', scale: 0.5 } })).toContainEqual(['latency profile', 'aws (scale 0.5)']);
    expect(summaryRows({ ...fixtureReport(), latencyProfile: { name: 'none', scale: 1 } })).toContainEqual(['latency profile', 'none']);
  });

  test('shows every summary row, and every verdict', () => {
    const report = fixtureReport();
    const html = renderHtmlReport(report, fixtureTimeline());
    for (const [label, value] of summaryRows(report)) expect(html).toContain(`<th scope="row">${escapeHtml(label.trim())}</th><td>${escapeHtml(value)}</td>`);
    for (const verdict of report.invariants ?? []) expect(html).toContain(escapeHtml(verdict.invariant));
    expect(html).toContain('10 held, 1 failed');
  });

  test('a report without verdicts lists its violations as failed', () => {
    const report: DemoReport = { ...fixtureReport(), violations: ['3 valid events were neither applied nor in a DLQ (e.g. e-1)'], invariants: undefined };
    const html = renderHtmlReport(report, fixtureTimeline());
    expect(html).toContain('<tr class="invariant" data-held="false"><td>3 valid events were neither applied nor in a DLQ (e.g. e-1)</td>');
    expect(html).toContain('0 held, 1 failed');
  });

  test('the charts script parses', () => {
    expect(() => new Function(CHARTS_SCRIPT)).not.toThrow();
  });
});

/** What the test reads back from the drawn page, as plain data. */
const inBrowser = browserTestsOr('html-report.test.ts');

(inBrowser ? describe : describe.skip)('the HTML report in headless Chromium', () => {
  const report = fixtureReport();
  const timeline = fixtureTimeline();
  let dir: string;
  let page: HeadlessPage;
  let drawn: DrawnPage;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'eo-html-report-'));
    const file = path.join(dir, 'report.html');
    writeFileSync(file, renderHtmlReport(report, timeline));
    page = await openHeadlessPage(file);
    drawn = await page.evaluate<DrawnPage>(READ_DRAWN_PAGE);
  });

  afterAll(async () => {
    await page?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('logs no error, throws none, and requests nothing but the file', () => {
    expect(page.pageErrors).toEqual([]);
    expect(page.consoleErrors).toEqual([]);
    expect(page.requests).toEqual([page.url]);
  });

  test('draws a chart per consumer, with axes, a legend and the phase marks', () => {
    expect(drawn.charts.map((chart) => chart.consumer)).toEqual(timeline.consumers.map((each) => each.name));
    for (const chart of drawn.charts) {
      expect(chart.ticks).toBeGreaterThanOrEqual(6);
      expect(chart.legend).toBe(4);
      expect(chart.phases).toBe(timeline.phases.length);
    }
  });

  test('each series has a point per period, every coordinate finite and inside the viewBox', () => {
    for (const [index, chart] of drawn.charts.entries()) {
      const [minX, minY, width, height] = chart.viewBox as [number, number, number, number];
      expect(chart.series.map((line) => line.series)).toEqual(['deliveries', 'duplicates', 'effects', 'dlqDepth']);
      for (const line of chart.series) {
        expect(line.points).toHaveLength(timeline.consumers[index]!.points.length);
        for (const [x, y] of line.points as [number, number][]) {
          expect(Number.isFinite(x) && Number.isFinite(y)).toBe(true);
          expect(x >= minX && x <= minX + width && y >= minY && y <= minY + height).toBe(true);
        }
      }
    }
  });

  test('the alarm strips have a row per alarm, a segment per state, and say which are not evaluated', () => {
    expect(drawn.strips.map((strip) => strip.consumer)).toEqual(timeline.consumers.map((each) => each.name));
    for (const [index, strip] of drawn.strips.entries()) {
      const expected = timeline.consumers[index]!.alarms.map((name) => timeline.alarms.find((each) => each.alarmName === name)!);
      expect(strip.rows.map((row) => row.alarm)).toEqual(expected.map((each) => each.alarmName));
      for (const [rowIndex, row] of strip.rows.entries()) {
        expect(row.states).toEqual(expected[rowIndex]!.states.map((each) => `state state-${each.state}`));
        expect(row.text.includes('not evaluated locally')).toBe(!expected[rowIndex]!.evaluated);
      }
    }
  });

  test('the invariants table lists every verdict', () => {
    const expected = (report.invariants ?? []).map((verdict: InvariantVerdict) => ({ invariant: verdict.invariant, held: verdict.held, verdict: verdict.held ? 'held' : 'failed' }));
    expect(drawn.invariants).toEqual(expected);
  });
});
