/**
 * The "over time" section as markup: a caption with the alarm states' colors, the element the
 * script draws the consumers' charts into, and the phases in order (the charts number their marks).
 */
import type { DemoTimeline, PhaseMark } from '../timeline';
import { CHARTS_ELEMENT_ID } from './charts-script';
import { escapeHtml } from './escape';
import { STATE_COLORS } from './series';

/** The charts section. */
export function chartsSection(timeline: DemoTimeline): string {
  return [
    '<section class="panel timeline">',
    '<h2>Over time</h2>',
    `<p class="caption">Per consumer, per period of ${seconds(timeline.periodMs)}: records delivered, duplicates skipped, effects applied, and its DLQ's depth; below, each of its alarms' state. ${stateLegend()}</p>`,
    `<div id="${CHARTS_ELEMENT_ID}"><noscript>The charts are drawn by the page's script: allow JavaScript to see them.</noscript></div>`,
    phaseList(timeline.phases),
    '</section>',
  ].join('\n');
}

function stateLegend(): string {
  const items = Object.keys(STATE_COLORS).map((state) => `<span><span class="swatch state-${state}"></span>${state}</span>`);
  return `<span class="state-legend">${items.join('')}</span>`;
}

function phaseList(phases: readonly PhaseMark[]): string {
  if (phases.length === 0) return '';
  const items = phases.map((phase) => `<li><span class="at">${seconds(phase.atMs)}</span>${escapeHtml(phase.phase)}</li>`);
  return ['<ol class="phase-list">', ...items, '</ol>'].join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
