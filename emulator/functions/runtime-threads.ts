/**
 * Which threads a function's execution environments run in, by its Lambda runtime: this process's
 * when the tools run on the runtime's Node.js major, else a runtime host on that major's binary
 * (./node-runtime.ts finds or fetches it), one host per binary for the whole process.
 */
import { nodeBinaryFor, type NodeBinary, type NodeBinaryOptions } from './node-runtime';
import { RuntimeHost } from './runtime-host';
import { IN_PROCESS_THREADS, type ThreadStarter } from './threads';

/** Where a runtime's functions run, and on which Node.js. */
export interface RuntimeThreads {
  readonly node: NodeBinary;
  readonly threads: ThreadStarter;
}

const hosts = new Map<string, RuntimeHost>();

/**
 * The threads for `runtime` (e.g. `nodejs24.x`).
 *
 * @throws Error naming the runtime when it is not Node.js, or no binary of its major can be found or fetched
 */
export async function threadsForRuntime(runtime: string, options: NodeBinaryOptions = {}): Promise<RuntimeThreads> {
  const node = await nodeBinaryFor(runtime, options);
  if (node.source === 'host') return { node, threads: IN_PROCESS_THREADS };
  let host = hosts.get(node.path);
  if (host === undefined) {
    host = new RuntimeHost(node.path);
    hosts.set(node.path, host);
  }
  return { node, threads: host.threadStarter };
}
