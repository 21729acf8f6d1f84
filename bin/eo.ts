#!/usr/bin/env node
/**
 * The effectively-once CLI, `eo`: its commands are in ./eo-program.ts. An error ends the run with
 * exit code 2 and its message on stderr.
 */
import { printableLines } from '../cli/terminal-text';
import { main } from './eo-program';

// The SDK's notice that its 2027 releases need Node.js 22 would break the progress bar; the README says it once.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

main(process.argv).catch((error: unknown) => {
  // An error may quote what it read (a DLQ message, a template): shown, not acted on by the terminal.
  process.stderr.write(`eo: ${printableLines(error instanceof Error ? error.message : String(error))}\n`);
  process.exitCode = 2;
});
