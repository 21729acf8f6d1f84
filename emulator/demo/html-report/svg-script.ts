/**
 * The browser side's building blocks, as script text: SVG elements and labels, the time scale the
 * charts and the alarm strips share (so a phase mark lines up in both), nice tick values, and the
 * time axis. Plain JavaScript without template literals: it sits inside a TypeScript one.
 */
export const SVG_SCRIPT = String.raw`
const SVG_NS = 'http://www.w3.org/2000/svg';
const WIDTH = 1200;
const MARGIN = { left: 64, right: 64 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
/** An average glyph's width at the labels' size, to shorten a label to the room it has. */
const GLYPH_WIDTH = 6.4;

function svg(name, attributes, parent) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

function label(parent, x, y, content, attributes) {
  const text = svg('text', Object.assign({ x: round(x), y: round(y) }, attributes || {}), parent);
  text.textContent = content;
  return text;
}

function tooltip(element, content) {
  svg('title', {}, element).textContent = content;
}

function round(value) {
  return Math.round(value * 10) / 10;
}

function seconds(ms) {
  return String(Math.round(ms / 100) / 10) + ' s';
}

function formatCount(value) {
  return value.toLocaleString('en-US');
}

/** Shortens text to about widthPx, with an ellipsis. */
function fitted(text, widthPx) {
  const room = Math.floor(widthPx / GLYPH_WIDTH);
  if (text.length <= room) return text;
  return room <= 1 ? '' : text.slice(0, room - 1) + '\u2026';
}

/** The step of 1, 2 or 5 times a power of ten that cuts 0..max into about count parts. */
function niceStep(max, count) {
  const raw = max / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  return [1, 2, 5, 10].map(function (multiple) { return multiple * power; }).find(function (step) { return step >= raw; });
}

/** Ticks from 0 by a nice step (at least minStep): up to max, or (cover) up to the first tick at or above it. */
function ticksOf(max, count, cover, minStep) {
  const positive = max > 0 ? max : 1;
  const step = Math.max(niceStep(positive, count), minStep || 0);
  const last = cover ? Math.ceil(positive / step - 1e-9) : Math.floor(positive / step + 1e-9);
  return Array.from({ length: last + 1 }, function (_, index) { return Number((index * step).toPrecision(12)); });
}

/** The run's length on the x axis: the timeline's duration, or its last period's end if later. */
function timeDomain(timeline) {
  const ends = timeline.consumers.map(function (consumer) {
    const last = consumer.points[consumer.points.length - 1];
    return last ? last.atMs + timeline.periodMs : 0;
  });
  return Math.max(1, timeline.durationMs, Math.max.apply(null, ends.concat([0])));
}

function timeScale(domainMs) {
  return function (ms) { return MARGIN.left + (Math.min(Math.max(ms, 0), domainMs) / domainMs) * PLOT_WIDTH; };
}

function drawTimeAxis(root, x, domainMs, bottom) {
  const axis = svg('g', { class: 'axis axis-time' }, root);
  svg('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: bottom, y2: bottom }, axis);
  for (const tick of ticksOf(domainMs / 1000, 10, false)) {
    const at = round(x(tick * 1000));
    svg('line', { x1: at, x2: at, y1: bottom, y2: bottom + 5 }, axis);
    label(axis, at, bottom + 18, String(tick) + ' s', { 'text-anchor': 'middle' });
  }
}

/** The phase marks: a dashed line each, labelled with its number and as much of its name as fits. */
function drawPhases(root, phases, x, top, bottom, labelled) {
  const group = svg('g', { class: 'phases' }, root);
  phases.forEach(function (phase, index) {
    const at = round(x(phase.atMs));
    const mark = svg('g', { class: 'phase', 'data-phase': phase.phase }, group);
    tooltip(mark, String(index + 1) + '. ' + phase.phase + ' (from ' + seconds(phase.atMs) + ')');
    svg('line', { x1: at, x2: at, y1: top, y2: bottom }, mark);
    if (!labelled) return;
    const next = index + 1 < phases.length ? x(phases[index + 1].atMs) : WIDTH - MARGIN.right;
    const number = String(index + 1);
    const name = fitted(phase.phase, next - at - 12 - number.length * GLYPH_WIDTH);
    label(mark, at + 4, top - 6, name ? number + ' ' + name : number, { class: 'phase-label' });
  });
}
`;
