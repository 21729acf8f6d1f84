/**
 * A local HTML file opened in headless Chromium (puppeteer-core over the system's browser), for
 * tests and tools: what the page logged as errors, what it threw, which URLs it asked for, an
 * evaluation in the page, and a PNG screenshot. Every request but the file itself is refused, so
 * a page that reaches for the network shows it in `requests` without reaching it.
 */
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM_NAMES, CHROMIUM_PATH_ENV, findChromium } from './chromium';

/** The default viewport: the width the README's screenshot is taken at. */
export const DEFAULT_VIEWPORT = { width: 1280, height: 800 } as const;

/** Options of {@link openHeadlessPage}. */
export interface HeadlessPageOptions {
  /** The browser to run. @default - findChromium(): CHROMIUM_PATH, else chromium, chromium-browser or google-chrome on PATH */
  readonly executablePath?: string;
  /** @default DEFAULT_VIEWPORT.width */
  readonly width?: number;
  /** @default DEFAULT_VIEWPORT.height */
  readonly height?: number;
}

/** An open page; close it when done. */
export interface HeadlessPage {
  /** The file's URL (`file:///...`). */
  readonly url: string;
  /** The text of every `console.error` and of every message the browser logged as an error (a refused request, a CSP violation). */
  readonly consoleErrors: readonly string[];
  /** Uncaught exceptions of the page's scripts. */
  readonly pageErrors: readonly string[];
  /** Every URL the page requested, the file's own first. */
  readonly requests: readonly string[];
  /** Evaluates a JavaScript expression in the page; its value must be JSON-serializable (a promise is awaited). */
  evaluate<T>(expression: string): Promise<T>;
  /** Writes a PNG screenshot of the whole page (not just the viewport), or of its top `maxHeight` pixels, to `file`. */
  screenshot(file: string, maxHeight?: number): Promise<void>;
  close(): Promise<void>;
}

/** The reason no page could be opened: no Chromium to run. */
export class ChromiumNotFoundError extends Error {
  public override readonly name = 'ChromiumNotFoundError';

  public constructor() {
    super(`no Chromium found: set ${CHROMIUM_PATH_ENV}, or install one of ${CHROMIUM_NAMES.join(', ')} on PATH (Debian: apt-get install chromium)`);
  }
}

/**
 * Opens `file` in a new headless browser and waits for its `load` event.
 * @throws ChromiumNotFoundError when there is no browser to run
 */
export async function openHeadlessPage(file: string, options: HeadlessPageOptions = {}): Promise<HeadlessPage> {
  const executablePath = options.executablePath ?? findChromium();
  if (!executablePath) throw new ChromiumNotFoundError();
  const browser = await puppeteer.launch({ executablePath, headless: true, args: launchArgs() });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: options.width ?? DEFAULT_VIEWPORT.width, height: options.height ?? DEFAULT_VIEWPORT.height });
    return await watched(browser, page, pathToFileURL(file).href);
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * `headless: true` is Chromium's new headless mode (`--headless=new`). Its sandbox cannot start
 * as root (CI runs as root): off there, which is safe for the local files this opens.
 */
function launchArgs(): string[] {
  const root = process.getuid?.() === 0;
  return ['--disable-gpu', '--no-first-run', ...(root ? ['--no-sandbox'] : [])];
}

async function watched(browser: Browser, page: Page, url: string): Promise<HeadlessPage> {
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error instanceof Error ? error.message : String(error)));
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    requests.push(request.url());
    // A request still pending when the browser closes cannot be answered, and need not be.
    (request.url() === url ? request.continue() : request.abort('blockedbyclient')).catch(() => undefined);
  });
  await page.goto(url, { waitUntil: 'load' });
  return {
    url,
    consoleErrors,
    pageErrors,
    requests,
    evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
    screenshot: async (file: string, maxHeight?: number) => {
      const path = file as `${string}.png`;
      if (maxHeight === undefined) {
        await page.screenshot({ path, fullPage: true, type: 'png' });
        return;
      }
      const width = page.viewport()?.width ?? DEFAULT_VIEWPORT.width;
      await page.screenshot({ path, type: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width, height: maxHeight } });
    },
    close: () => browser.close(),
  };
}
