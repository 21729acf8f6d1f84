/** Finds the system's Chromium: the browser the HTML report's test and screenshot run (puppeteer-core downloads none). */
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';

/** The env var that names the browser to run, before any on PATH. */
export const CHROMIUM_PATH_ENV = 'CHROMIUM_PATH';

/** The names looked up on PATH, in order: Debian's package, Ubuntu's, Google's. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

/** The browser's executable: `CHROMIUM_PATH` when set, else the first of CHROMIUM_NAMES on PATH; undefined when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env[CHROMIUM_PATH_ENV];
  if (named) return named;
  const folders = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES) {
    const found = folders.map((folder) => path.join(folder, name)).find(isExecutable);
    if (found) return found;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
