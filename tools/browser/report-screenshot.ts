#!/usr/bin/env node
/**
 * `npm run report:screenshot -- <html file> <png out> [--max-height PX]`: a full-page screenshot,
 * 1280 pixels wide, of a demo's HTML report (`npm run demo -- --html FILE`), for the README; with
 * `--max-height`, only the top of the page. Exit code 1 when the
 * page logged an error or threw (the screenshot is written anyway, to look at), 2 on bad usage or
 * when no Chromium is found.
 */
import { existsSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ChromiumNotFoundError, DEFAULT_VIEWPORT, openHeadlessPage } from './headless-page';

const program = new Command('report:screenshot')
  .description(`Write a ${DEFAULT_VIEWPORT.width}-pixel-wide full-page PNG of an HTML report`)
  .argument('<html>', 'the HTML file to open')
  .argument('<png>', 'the PNG to write')
  .option('--max-height <px>', 'only the top of the page, this many pixels high', pixels)
  .action(async (html: string, png: string, flags: { maxHeight?: number }) => {
    process.exitCode = await screenshot(html, png, flags.maxHeight);
  })
  .exitOverride();

function pixels(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`expected a whole number of pixels >= 1, got "${value}"`);
  return parsed;
}

async function screenshot(html: string, png: string, maxHeight: number | undefined): Promise<number> {
  if (!existsSync(html)) return usageError(`${html}: no such file`);
  const page = await openHeadlessPage(html, { width: DEFAULT_VIEWPORT.width });
  try {
    await page.screenshot(png, maxHeight);
    const pageHeight = await page.evaluate<number>('document.documentElement.scrollHeight');
    const height = Math.min(pageHeight, maxHeight ?? pageHeight);
    process.stdout.write(`wrote ${png} (${DEFAULT_VIEWPORT.width} x ${height}) from ${html}\n`);
    return reportErrors([...page.pageErrors, ...page.consoleErrors]);
  } finally {
    await page.close();
  }
}

function reportErrors(errors: readonly string[]): number {
  for (const error of errors) process.stderr.write(`page error: ${error}\n`);
  return errors.length > 0 ? 1 : 0;
}

function usageError(message: string): number {
  process.stderr.write(`${message}\n`);
  return 2;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    return;
  }
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof ChromiumNotFoundError ? 2 : 1;
});
