/** The report's inline style sheet: a system font stack on a light background, a color per series and per alarm state. */
import { SERIES, STATE_COLORS } from './series';

const SERIES_RULES = SERIES.map((series) => `.series[data-series="${series.key}"] { stroke: ${series.color}; }`).join('\n');

const STATE_RULES = Object.entries(STATE_COLORS).map(([state, color]) => `.state-${state} { fill: ${color}; background: ${color}; }`).join('\n');

const BASE_RULES = `
:root { color-scheme: light; --text: #1f2937; --muted: #6b7280; --line: #e5e7eb; --panel: #ffffff; --page: #f5f6f8; --held: #166534; --failed: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--text); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1232px; margin: 0 auto; padding: 28px 24px 48px; }
header { margin-bottom: 20px; }
h1 { font-size: 22px; margin: 0 0 4px; display: flex; align-items: center; gap: 12px; }
h2 { font-size: 16px; margin: 0 0 12px; }
.meta, .caption, .muted { color: var(--muted); }
.meta { margin: 0; }
.badge { font-size: 13px; font-weight: 600; padding: 2px 10px; border-radius: 999px; }
.badge.pass { background: #dcfce7; color: var(--held); }
.badge.fail { background: #fee2e2; color: var(--failed); }
.panels { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 20px; align-items: start; margin-bottom: 20px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; }
table { width: 100%; border-collapse: collapse; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
tr:last-child th, tr:last-child td { border-bottom: none; }
thead th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
tbody th { font-weight: 500; width: 58%; }
td { font-variant-numeric: tabular-nums; }
tr.nested th { padding-left: 24px; color: var(--muted); font-weight: 400; }
.verdict { white-space: nowrap; font-weight: 600; }
.verdict.held { color: var(--held); }
.verdict.failed { color: var(--failed); }
.detail { display: block; color: var(--failed); font-size: 13px; }
.caption { margin: -4px 0 16px; }
.state-legend { display: inline-flex; gap: 14px; margin-left: 6px; }
.state-legend .swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 5px; }
figure.consumer { margin: 0 0 28px; }
figcaption { display: flex; align-items: baseline; gap: 10px; margin-bottom: 4px; }
figcaption strong { font-size: 15px; }
.source { font-size: 12px; color: var(--muted); border: 1px solid var(--line); border-radius: 999px; padding: 0 8px; }
svg { display: block; width: 100%; height: auto; font: 12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
svg text { fill: #4b5563; }
.grid line { stroke: #eef0f3; }
.axis line { stroke: #9ca3af; }
.axis-title, .phase-label, .alarm-name, .not-evaluated-label { font-size: 11px; }
.axis-title { fill: var(--muted); }
.phase line { stroke: #6b7280; stroke-dasharray: 4 3; }
.alarm-strip .phase line { stroke: #d1d5db; }
.phase-label { fill: #374151; }
.series { fill: none; stroke-width: 2; stroke-linejoin: round; stroke-linecap: round; }
.series[data-series="dlqDepth"] { stroke-dasharray: 6 3; }
.legend .swatch { stroke-width: 3; }
.alarm-name { fill: #374151; }
.not-evaluated { fill: #f9fafb; stroke: #d1d5db; stroke-dasharray: 3 3; }
.not-evaluated-label { fill: var(--muted); font-style: italic; }
.phase-list { margin: 4px 0 0; padding-left: 22px; color: var(--muted); columns: 2; column-gap: 32px; }
.phase-list .at { font-variant-numeric: tabular-nums; color: var(--text); margin-right: 6px; }
@media (max-width: 900px) { .panels { grid-template-columns: minmax(0, 1fr); } .phase-list { columns: 1; } }
`;

/** The whole style sheet. */
export const STYLES = [BASE_RULES.trim(), SERIES_RULES, STATE_RULES].join('\n');
