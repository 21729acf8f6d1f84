/**
 * The report's one inline script: it reads the embedded data (the `demo-data` JSON element) and
 * draws, per consumer, a chart and an alarm strip as inline SVG. Drawn in the browser rather
 * than written out as markup, so that a page whose charts have data points proves the script ran.
 */
import { ALARM_STRIP_SCRIPT } from './alarm-strip-script';
import { CHART_SCRIPT } from './chart-script';
import { SERIES } from './series';
import { SVG_SCRIPT } from './svg-script';

/** The id of the element that holds the report and the timeline as JSON. */
export const DATA_ELEMENT_ID = 'demo-data';

/** The id of the element the script draws the consumers' charts into. */
export const CHARTS_ELEMENT_ID = 'charts';

const DRAW_SCRIPT = String.raw`
function drawCharts() {
  const data = JSON.parse(document.getElementById('${DATA_ELEMENT_ID}').textContent);
  const timeline = data.timeline;
  const host = document.getElementById('${CHARTS_ELEMENT_ID}');
  host.textContent = '';
  if (timeline.consumers.length === 0) {
    host.textContent = 'The timeline has no consumers.';
    return;
  }
  const domainMs = timeDomain(timeline);
  const x = timeScale(domainMs);
  for (const consumer of timeline.consumers) host.appendChild(consumerFigure(consumer, timeline, x, domainMs));
}

function consumerFigure(consumer, timeline, x, domainMs) {
  const figure = document.createElement('figure');
  figure.className = 'consumer';
  figure.dataset.consumer = consumer.name;
  const caption = document.createElement('figcaption');
  const name = document.createElement('strong');
  name.textContent = consumer.name;
  const source = document.createElement('span');
  source.className = 'source';
  source.textContent = consumer.source;
  caption.append(name, source);
  figure.append(caption, consumerChart(consumer, timeline, x, domainMs), alarmStrip(consumer, timeline, x, domainMs));
  return figure;
}
`;

/** The whole script, its parts inside one function scope. */
export const CHARTS_SCRIPT = ['(function () {', "'use strict';", `const SERIES = ${JSON.stringify(SERIES)};`, SVG_SCRIPT, CHART_SCRIPT, ALARM_STRIP_SCRIPT, DRAW_SCRIPT, 'drawCharts();', '})();'].join('\n');
