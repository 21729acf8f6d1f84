import { createWriteStream } from 'node:fs';

/** Which of a function's streams a chunk came from. */
export interface OutputSource {
  readonly functionName: string;
  readonly stream: 'stdout' | 'stderr';
}

/** Receives what a function writes, chunk by chunk (a chunk may end mid-line). */
export type OutputSink = (chunk: string, source: OutputSource) => void;

/** Drops a function's output: the default, since the demo draws a progress bar on the terminal. */
export const DROP_OUTPUT: OutputSink = () => undefined;

/** An `OutputSink` that writes to a file, and what closes it. */
export interface FileOutput {
  readonly sink: OutputSink;
  /** Writes any unfinished lines and closes the file. */
  close(): Promise<void>;
}

/**
 * Appends every line that functions write to `path`, prefixed with the function and stream, e.g.
 * `[page-view-counter stderr] ...`. Lines are reassembled per function and stream first, so two
 * functions' output never interleaves mid-line.
 *
 * @example
 * const log = fileOutput('.eo/functions.log');
 * const fn = new LocalFunction({ ...config, output: log.sink });
 * // ...
 * await fn.stop();
 * await log.close();
 */
export function fileOutput(path: string): FileOutput {
  const file = createWriteStream(path, { flags: 'a' });
  const partial = new Map<string, string>();
  const sink: OutputSink = (chunk, source) => {
    const prefix = `[${source.functionName} ${source.stream}] `;
    const lines = ((partial.get(prefix) ?? '') + chunk).split('\n');
    partial.set(prefix, lines.pop() ?? '');
    for (const line of lines) file.write(`${prefix}${line}\n`);
  };
  const close = (): Promise<void> => {
    for (const [prefix, rest] of partial) if (rest !== '') file.write(`${prefix}${rest}\n`);
    partial.clear();
    return new Promise((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
  };
  return { sink, close };
}
