#!/usr/bin/env node
/**
 * The `eo` command of the package (its `bin`). An installed package runs the build,
 * dist/bin/eo.js, and nothing else: it ships no TypeScript and needs no tsx. A checkout with no
 * build (a fresh clone after `npm ci`) runs the TypeScript entry, bin/eo.ts, through tsx, a
 * devDependency: a checkout installed without them (`npm ci --omit=dev`) is told to install them or
 * to build. After `npm run build`, a checkout runs its build too: rebuild after changing the code,
 * or use `npm run eo`, which always runs the TypeScript.
 *
 * Plain CommonJS on purpose: this file must run before anything is compiled.
 */
'use strict';

const { existsSync } = require('node:fs');
const path = require('node:path');

const BUILT_ENTRY = path.join(__dirname, '..', 'dist', 'bin', 'eo.js');
const SOURCE_ENTRY = path.join(__dirname, 'eo.ts');

/** Loads tsx's hooks (ESM for the CLI's dynamic imports, CommonJS for the rest), then the TypeScript entry. */
async function runSource() {
  // The ESM API's CommonJS build resolves its hooks from the wrong folder (tsx 4.23): import its ESM build.
  const { register } = await import('tsx/esm/api');
  register();
  require('tsx/cjs/api').register();
  require(SOURCE_ENTRY);
}

function fail(message) {
  process.stderr.write(`eo: ${message}\n`);
  process.exitCode = 2;
}

if (existsSync(BUILT_ENTRY)) {
  require(BUILT_ENTRY);
} else if (!existsSync(SOURCE_ENTRY)) {
  fail(`${BUILT_ENTRY} is missing: this install of effectively-once has no build. Reinstall the package (npm pack runs the build).`);
} else {
  runSource().catch((error) => {
    const missingTsx = error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes("'tsx");
    fail(missingTsx ? `running ${SOURCE_ENTRY} needs tsx, a devDependency of this checkout: run \`npm ci\` (with the devDependencies), or \`npm ci && npm run build\` to run the build; an operator needs no checkout: \`npm install effectively-once\` installs \`eo\` ready built` : String((error && error.stack) || error));
  });
}
