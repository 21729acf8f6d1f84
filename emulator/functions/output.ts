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
  const lines = new LineBuffer();
  const sink: OutputSink = (chunk, source) => {
    const prefix = `[${source.functionName} ${source.stream}] `;
    for (const line of lines.push(prefix, chunk)) file.write(`${prefix}${line}\n`);
  };
  const close = (): Promise<void> => {
    for (const [prefix, rest] of lines.drain()) file.write(`${prefix}${rest}\n`);
    return new Promise((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
  };
  return { sink, close };
}

/**
 * Reassembles lines from chunks that may end mid-line, per key (a function and stream), so that
 * two writers' output never interleaves mid-line.
 */
export class LineBuffer {
  private readonly partial = new Map<string, string>();

  /** The lines `chunk` completes for `key`; what follows its last line break waits for the next chunk. */
  public push(key: string, chunk: string): string[] {
    const lines = ((this.partial.get(key) ?? '') + chunk).split('\n');
    this.partial.set(key, lines.pop() ?? '');
    return lines;
  }

  /** The unfinished line of every key that has one, and none kept after. */
  public drain(): [key: string, rest: string][] {
    const rests = [...this.partial].filter(([, rest]) => rest !== '');
    this.partial.clear();
    return rests;
  }
}
