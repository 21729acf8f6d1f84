/**
 * The browser side of a consumer's alarm strip, as script text: one row per alarm of the
 * consumer, a segment per state (each lasting until the next one, the last until the run's end),
 * on the chart's time scale. An alarm local mode does not evaluate gets a row that says so.
 */
export const ALARM_STRIP_SCRIPT = String.raw`
const STRIP = { row: 36, top: 6, bottom: 30, bar: 14 };

function alarmStrip(consumer, timeline, x, domainMs) {
  const alarms = consumer.alarms.map(function (name) { return alarmOf(timeline, name); });
  const height = STRIP.top + Math.max(alarms.length, 1) * STRIP.row + STRIP.bottom;
  const root = svg('svg', { class: 'alarm-strip', 'data-consumer': consumer.name, viewBox: '0 0 ' + WIDTH + ' ' + height, role: 'img', 'aria-label': consumer.name + ': its alarms\' states over the run' });
  drawPhases(root, timeline.phases, x, STRIP.top, height - STRIP.bottom, false);
  if (alarms.length === 0) label(root, MARGIN.left, STRIP.top + 22, 'no alarms', { class: 'muted' });
  alarms.forEach(function (alarm, index) { alarmRow(root, alarm, STRIP.top + index * STRIP.row, x, timeline.durationMs); });
  drawTimeAxis(root, x, domainMs, height - STRIP.bottom);
  return root;
}

/** The alarm's timeline; one the timeline does not list is shown as not evaluated. */
function alarmOf(timeline, name) {
  const found = timeline.alarms.find(function (alarm) { return alarm.alarmName === name; });
  return found || { alarmName: name, metric: '', evaluated: false, states: [] };
}

function alarmRow(root, alarm, top, x, durationMs) {
  const row = svg('g', { class: 'alarm-row', 'data-alarm': alarm.alarmName, 'data-evaluated': String(alarm.evaluated) }, root);
  label(row, MARGIN.left, top + 12, alarm.metric ? alarm.alarmName + '  \u00b7  ' + alarm.metric : alarm.alarmName, { class: 'alarm-name' });
  const barTop = top + 17;
  if (!alarm.evaluated) {
    svg('rect', { class: 'not-evaluated', x: MARGIN.left, y: barTop, width: PLOT_WIDTH, height: STRIP.bar, rx: 2 }, row);
    label(row, MARGIN.left + PLOT_WIDTH / 2, barTop + 11, 'not evaluated locally', { class: 'not-evaluated-label', 'text-anchor': 'middle' });
    return;
  }
  alarm.states.forEach(function (state, index) {
    const until = index + 1 < alarm.states.length ? alarm.states[index + 1].atMs : durationMs;
    const from = x(state.atMs);
    const segment = svg('rect', { class: 'state state-' + state.state, 'data-state': state.state, x: round(from), y: barTop, width: round(Math.max(0, x(until) - from)), height: STRIP.bar }, row);
    tooltip(segment, state.state + ' from ' + seconds(state.atMs) + ' to ' + seconds(until));
  });
}
`;
