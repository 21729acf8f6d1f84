/**
 * The document shell: one HTML file that needs nothing at view time. Its Content-Security-Policy
 * allows no network request and runs only the style sheet and the script it was written with
 * (their hashes), so a report cannot fetch anything, and injected markup cannot run.
 */
import { createHash } from 'node:crypto';
import { DATA_ELEMENT_ID } from './charts-script';
import { escapeHtml, jsonForScript } from './escape';

/** What a page is made of. */
export interface PageParts {
  readonly title: string;
  /** Markup, already escaped. */
  readonly body: string;
  /** Embedded as JSON in the data element, for the script. */
  readonly data: unknown;
  readonly style: string;
  readonly script: string;
}

/** The full HTML document. */
export function htmlPage(parts: PageParts): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(parts))}">`,
    `<title>${escapeHtml(parts.title)}</title>`,
    // Without an icon of its own, a browser would ask the server for /favicon.ico.
    '<link rel="icon" href="data:,">',
    `<style>${parts.style}</style>`,
    '</head>',
    '<body>',
    parts.body,
    `<script type="application/json" id="${DATA_ELEMENT_ID}">${jsonForScript(parts.data)}</script>`,
    `<script>${parts.script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function contentSecurityPolicy(parts: PageParts): string {
  return [`default-src 'none'`, `img-src data:`, `style-src '${sha256(parts.style)}'`, `script-src '${sha256(parts.script)}'`, `base-uri 'none'`, `form-action 'none'`].join('; ');
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
