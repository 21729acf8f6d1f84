/**
 * The browser side of one consumer's chart, as script text: its four series per period, a count
 * axis on the left (deliveries, duplicates, effects) and a depth axis on the right (DLQ depth),
 * the legend, and the phase marks. Uses SVG_SCRIPT's helpers and the SERIES constant.
 */
export const CHART_SCRIPT = String.raw`
const CHART = { height: 300, top: 52, bottom: 40 };
const CHART_BOTTOM = CHART.height - CHART.bottom;
const PLOT_HEIGHT = CHART_BOTTOM - CHART.top;

function consumerChart(consumer, timeline, x, domainMs) {
  const root = svg('svg', { class: 'chart', 'data-consumer': consumer.name, viewBox: '0 0 ' + WIDTH + ' ' + CHART.height, role: 'img', 'aria-label': consumer.name + ': deliveries, duplicates skipped, effects applied and DLQ depth per period' });
  const scales = { count: valueScale(consumer.points, 'count'), depth: valueScale(consumer.points, 'depth') };
  drawGrid(root, scales.count);
  drawTimeAxis(root, x, domainMs, CHART_BOTTOM);
  drawValueAxis(root, scales.count, 'left', 'per period (' + seconds(timeline.periodMs) + ')');
  drawValueAxis(root, scales.depth, 'right', 'DLQ depth');
  drawPhases(root, timeline.phases, x, CHART.top, CHART_BOTTOM, true);
  for (const series of SERIES) drawSeries(root, consumer.points, series, x, scales[series.axis], timeline.periodMs);
  drawLegend(root);
  return root;
}

function valueOf(point, key) {
  const value = Number(point[key]);
  return Number.isFinite(value) ? value : 0;
}

/** The ticks and the y of one axis, from 0 to a nice value at or above its series' largest. */
function valueScale(points, axis) {
  const keys = SERIES.filter(function (series) { return series.axis === axis; }).map(function (series) { return series.key; });
  const max = points.reduce(function (largest, point) {
    return keys.reduce(function (inner, key) { return Math.max(inner, valueOf(point, key)); }, largest);
  }, 0);
  // Counts and depths are whole numbers: no tick between two of them.
  const ticks = ticksOf(max, 4, true, 1);
  const top = ticks[ticks.length - 1];
  return { ticks: ticks, y: function (value) { return CHART_BOTTOM - (value / top) * PLOT_HEIGHT; } };
}

function drawGrid(root, scale) {
  const grid = svg('g', { class: 'grid' }, root);
  for (const tick of scale.ticks) {
    const y = round(scale.y(tick));
    svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y, y2: y }, grid);
  }
}

function drawValueAxis(root, scale, side, title) {
  const left = side === 'left';
  const at = left ? MARGIN.left : WIDTH - MARGIN.right;
  const axis = svg('g', { class: 'axis axis-' + side }, root);
  svg('line', { x1: at, x2: at, y1: CHART.top, y2: CHART_BOTTOM }, axis);
  for (const tick of scale.ticks) label(axis, at + (left ? -8 : 8), scale.y(tick) + 4, formatCount(tick), { 'text-anchor': left ? 'end' : 'start' });
  const middle = round(CHART.top + PLOT_HEIGHT / 2);
  const edge = left ? 14 : WIDTH - 14;
  label(axis, edge, middle, title, { class: 'axis-title', 'text-anchor': 'middle', transform: 'rotate(' + (left ? -90 : 90) + ' ' + edge + ' ' + middle + ')' });
}

/** One polyline per series, a point at the middle of each period. */
function drawSeries(root, points, series, x, scale, periodMs) {
  const coordinates = points.map(function (point) {
    return round(x(point.atMs + periodMs / 2)) + ',' + round(scale.y(valueOf(point, series.key)));
  });
  const line = svg('polyline', { class: 'series', 'data-series': series.key, points: coordinates.join(' '), fill: 'none', stroke: series.color }, root);
  tooltip(line, series.label);
}

function drawLegend(root) {
  const legend = svg('g', { class: 'legend' }, root);
  let at = MARGIN.left;
  for (const series of SERIES) {
    const item = svg('g', { class: 'legend-item', 'data-series': series.key }, legend);
    svg('line', { x1: at, x2: at + 18, y1: 14, y2: 14, stroke: series.color, class: 'swatch' }, item);
    label(item, at + 24, 18, series.label + (series.axis === 'depth' ? ' (right axis)' : ''));
    at += 48 + (series.label.length + (series.axis === 'depth' ? 13 : 0)) * GLYPH_WIDTH;
  }
}
`;
