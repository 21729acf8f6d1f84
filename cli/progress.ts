/**
 * Progress on stderr: a bar redrawn in place on a terminal, one line per phase otherwise (CI logs
 * stay readable). Stdout is left for the summary and `--json -`.
 */
const BAR_WIDTH = 30;

export interface Progress {
  phase(name: string): void;
  update(label: string, done: number, total: number): void;
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, quiet = false): Progress {
  if (quiet) return { phase: () => undefined, update: () => undefined, done: () => undefined };
  const interactive = Boolean(stream.isTTY);
  let lastLine = '';
  let lastPrintedPercent = -1;
  return {
    phase(name) {
      if (interactive && lastLine) stream.write('\n');
      lastLine = '';
      stream.write(`• ${name}\n`);
    },
    update(label, done, total) {
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      const filled = Math.round((percent / 100) * BAR_WIDTH);
      lastLine = `  ${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent}% (${done}/${total})`;
      if (interactive) stream.write(`\r${lastLine}`);
      else if (percent >= lastPrintedPercent + 25 || (percent === 100 && lastPrintedPercent < 100)) {
        lastPrintedPercent = percent;
        stream.write(`${lastLine}\n`);
      }
    },
    done() {
      if (interactive && lastLine) stream.write('\n');
      lastLine = '';
      lastPrintedPercent = -1;
    },
  };
}
