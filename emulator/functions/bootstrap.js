'use strict';
// One local Lambda execution environment (its bootstrap). LocalFunction starts this file in a
// worker thread with the function's own `env`. Plain CommonJS on purpose: it runs as it is under
// tsx, ts-jest and node, without a TypeScript loader in the worker. The messages it exchanges are typed in
// protocol.ts; keep the two in step.
const { parentPort, workerData } = require('node:worker_threads');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

/** @type {import('./protocol').WorkerConfig} */
const config = workerData;
let handler;

/**
 * On Lambda Managed Instances (`AWS_LAMBDA_MAX_CONCURRENCY` set) the runtime runs each invocation
 * inside its own context of an invoke store at `globalThis.awslambda.InvokeStore`, the shape of
 * `@aws/lambda-invoke-store`'s: Powertools scopes its Logger, Metrics and batch state per
 * invocation through it, and fails without it. Its protected keys are the package's symbols.
 */
function managedInstancesInvokeStore() {
  const { AsyncLocalStorage } = require('node:async_hooks');
  const keys = {
    REQUEST_ID: Symbol.for('_AWS_LAMBDA_REQUEST_ID'),
    X_RAY_TRACE_ID: Symbol.for('_AWS_LAMBDA_X_RAY_TRACE_ID'),
    TENANT_ID: Symbol.for('_AWS_LAMBDA_TENANT_ID'),
  };
  const protectedKeys = new Set(Object.values(keys));
  const storage = new AsyncLocalStorage();
  return {
    keys,
    store: {
      getContext: () => storage.getStore(),
      hasContext: () => storage.getStore() !== undefined,
      get: (key) => storage.getStore()?.[key],
      set: (key, value) => {
        if (protectedKeys.has(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
        const context = storage.getStore();
        if (context === undefined) throw new Error('No context available');
        context[key] = value;
      },
      run: (context, fn) => storage.run(context, fn),
      isProtectedKey: (key) => protectedKeys.has(key),
      getRequestId: () => storage.getStore()?.[keys.REQUEST_ID] ?? '-',
      getXRayTraceId: () => storage.getStore()?.[keys.X_RAY_TRACE_ID],
      getTenantId: () => storage.getStore()?.[keys.TENANT_ID],
    },
  };
}

const invokeStore = process.env.AWS_LAMBDA_MAX_CONCURRENCY === undefined ? undefined : managedInstancesInvokeStore();
if (invokeStore !== undefined) {
  globalThis.awslambda = globalThis.awslambda || {};
  globalThis.awslambda.InvokeStore = invokeStore.store;
}

/** Runs `fn` in the invocation's own context of the invoke store, where there is one. */
function inInvocationContext(request, fn) {
  if (invokeStore === undefined) return fn();
  return invokeStore.store.run({ [invokeStore.keys.REQUEST_ID]: request.requestId }, fn);
}

/** Lambda's handler string: `<file>.<export>`, the file relative to the task root. */
async function loadHandler() {
  const dot = config.handler.lastIndexOf('.');
  if (dot <= 0) throw runtimeError('Runtime.MalformedHandlerName', `Bad handler ${config.handler}: expected <file>.<export>`);
  const file = join(config.assetDir, config.handler.slice(0, dot));
  const exported = (await importModule(file))[config.handler.slice(dot + 1)];
  if (typeof exported !== 'function') {
    throw runtimeError('Runtime.HandlerNotFound', `${config.handler} is undefined or not exported`);
  }
  return exported;
}

async function importModule(file) {
  try {
    return existsSync(`${file}.mjs`) ? await import(pathToFileURL(`${file}.mjs`).href) : require(file);
  } catch (error) {
    // Lambda's names for the two ways loading fails before the handler's own code runs.
    if (error && error.code === 'MODULE_NOT_FOUND') throw runtimeError('Runtime.ImportModuleError', `Error: ${error.message}`);
    if (error instanceof SyntaxError) throw runtimeError('Runtime.UserCodeSyntaxError', `SyntaxError: ${error.message}`);
    throw error;
  }
}

function runtimeError(name, message) {
  return Object.assign(new Error(message), { name });
}

/** The context object Lambda's Node.js runtime passes as the handler's second argument. */
function lambdaContext(request, done) {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: config.functionName,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION || '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${config.region}:${config.accountId}:function:${config.functionName}`,
    memoryLimitInMB: String(config.memoryMb),
    awsRequestId: request.requestId,
    clientContext: request.clientContext === undefined ? undefined : JSON.parse(request.clientContext),
    logGroupName: config.logGroupName,
    logStreamName: config.logStreamName,
    getRemainingTimeInMillis: () => Math.max(0, request.deadlineMs - Date.now()),
    done,
    succeed: (result) => done(null, result),
    fail: (error) => done(error ?? new Error('handled')),
  };
}

/**
 * Async handlers resolve their promise; callback handlers call back (Lambda's nodejs24.x runtime
 * no longer supports callbacks, older runtimes do). The response is sent when the callback
 * fires: `callbackWaitsForEmptyEventLoop` is set but not honoured.
 */
function callHandler(event, request) {
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (error, result) => {
      if (settled) return;
      settled = true;
      if (error !== null && error !== undefined) reject(error);
      else resolve(result);
    };
    const returned = handler(event, lambdaContext(request, done), done);
    if (returned && typeof returned.then === 'function') returned.then((result) => done(null, result), (error) => done(error));
    else if (handler.length < 3) done(null, returned);
  });
}

function describeError(error) {
  if (error instanceof Error) return { name: error.name || 'Error', message: error.message, stack: error.stack };
  return { name: typeof error, message: String(error) };
}

/** Lambda serialises the response as JSON, so the caller gets what a real invoke returns. */
function serialise(response) {
  try {
    return { ok: true, response: JSON.stringify(response === undefined ? null : response) };
  } catch (error) {
    return { ok: false, error: { name: 'Runtime.MarshalError', message: `Unable to stringify response body: ${error.message}` } };
  }
}

async function invoke(request) {
  let outcome;
  try {
    outcome = serialise(await inInvocationContext(request, () => callHandler(JSON.parse(request.event), request)));
  } catch (error) {
    outcome = { ok: false, error: describeError(error) };
  }
  parentPort.postMessage({ type: 'result', id: request.id, ...outcome });
}

parentPort.on('message', (message) => {
  if (message.type === 'invoke') void invoke(message);
});

loadHandler().then(
  (loaded) => {
    handler = loaded;
    parentPort.postMessage({ type: 'ready' });
  },
  (error) => parentPort.postMessage({ type: 'init-error', error: describeError(error) }),
);
