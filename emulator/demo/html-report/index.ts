/** The demo's HTML report (`npm run demo -- --html FILE`). */
export { renderHtmlReport } from './render';
export type { EmbeddedDemoData } from './render';
export { DATA_ELEMENT_ID } from './charts-script';
