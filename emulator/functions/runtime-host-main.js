'use strict';
// A runtime host: a process on the Node.js major of a Lambda runtime (e.g. 24 for nodejs24.x) that
// holds the worker threads of the execution environments of the functions on that runtime, when
// the tools run on another major. RuntimeHost (runtime-host.ts) forks it and drives it over the
// IPC channel; each thread runs bootstrap.js as it would in the tools' own process. Plain CommonJS
// on purpose: it runs on a bare Node.js, without a TypeScript loader. Keep the messages in step
// with runtime-host.ts.
const { Worker } = require('node:worker_threads');

/** @type {Map<number, Worker>} */
const threads = new Map();

function send(message) {
  if (process.connected) process.send(message);
}

function errorOf(error) {
  return { name: (error && error.name) || 'Error', message: (error && error.message) || String(error) };
}

/**
 * Output waits for the end of the tick, or for the thread's next message or exit, and goes with
 * it: one IPC message (one wake-up of the tools' process) instead of one per chunk.
 * @type {Map<number, Array<[string, string]>>}
 */
const pendingOutput = new Map();

function takeOutput(id) {
  const output = pendingOutput.get(id);
  pendingOutput.delete(id);
  return output;
}

function bufferOutput(id, stream, chunk) {
  const output = pendingOutput.get(id);
  if (output) {
    output.push([stream, chunk]);
    return;
  }
  pendingOutput.set(id, [[stream, chunk]]);
  setImmediate(() => {
    const due = takeOutput(id);
    if (due) send({ op: 'output', id, output: due });
  });
}

function start({ id, file, env, workerData, execArgv }) {
  let worker;
  try {
    worker = new Worker(file, { env, workerData, execArgv, stdout: true, stderr: true });
  } catch (error) {
    send({ op: 'error', id, error: errorOf(error) });
    send({ op: 'exit', id, code: 1 });
    return;
  }
  threads.set(id, worker);
  for (const stream of ['stdout', 'stderr']) {
    worker[stream].setEncoding('utf8');
    worker[stream].on('data', (chunk) => bufferOutput(id, stream, chunk));
  }
  worker.on('message', (message) => send({ op: 'message', id, message, output: takeOutput(id) }));
  worker.on('error', (error) => send({ op: 'error', id, error: errorOf(error), output: takeOutput(id) }));
  worker.on('exit', (code) => {
    threads.delete(id);
    // A worker's streams can still hold output when it exits: let them drain first.
    setImmediate(() => send({ op: 'exit', id, code, output: takeOutput(id) }));
  });
}

process.on('message', (message) => {
  if (message.op === 'start') start(message);
  else if (message.op === 'post') threads.get(message.id)?.postMessage(message.message);
  else if (message.op === 'terminate') {
    const worker = threads.get(message.id);
    if (worker) void worker.terminate();
    else send({ op: 'exit', id: message.id, code: 1 });
  }
});

// The tools' process is gone (or closed the channel): so are the functions.
process.on('disconnect', () => process.exit(0));
send({ op: 'ready', version: process.versions.node });
