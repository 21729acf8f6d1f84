/**
 * `--dump-dir`: what a run leaves behind for whoever has to find out what happened, however it
 * ended: `published.jsonl` (every message sent, once publishing started), `state.json` (the state
 * read back, when it can be read), `functions.log` (written as the run goes, by the demo) and, when
 * the run failed, `error.txt`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PublishedMessage } from './publisher';
import { dlqDepth, type FinalState } from './state';

/**
 * How long a failed run waits to read the state for its dump. The engines may be the reason it
 * failed: the dump must not hang on them.
 */
export const DUMP_STATE_READ_LIMIT_MS = 15_000;

/** What goes into the dump; absent parts are not written. */
export interface DumpContents {
  readonly messages?: readonly PublishedMessage[];
  readonly state?: FinalState;
  /** Why the run failed, as `error.txt` tells it. */
  readonly error?: string;
}

/** Writes what there is to `dir`. */
export function writeDump(dir: string, contents: DumpContents): void {
  mkdirSync(dir, { recursive: true });
  if (contents.messages) writeFileSync(path.join(dir, 'published.jsonl'), publishedLines(contents.messages));
  if (contents.state) writeFileSync(path.join(dir, 'state.json'), `${JSON.stringify(stateOf(contents.state), null, 2)}\n`);
  if (contents.error !== undefined) writeFileSync(path.join(dir, 'error.txt'), `${contents.error}\n`);
}

function publishedLines(messages: readonly PublishedMessage[]): string {
  return messages.map((message) => `${JSON.stringify({ target: message.target.split(/[/:]/).pop(), body: message.body })}\n`).join('');
}

function stateOf(state: FinalState): Record<string, unknown> {
  const orders = Object.fromEntries(Object.entries(state.orders).map(([orderId, order]) => [orderId, { status: order.status, version: order.version }]));
  const dlqs = state.dlqs.map((dlq) => ({ queue: dlq.queueName, messages: dlqDepth(dlq), failures: dlq.failures.map((failure) => failure.error.name), pointers: dlq.pointers.length, withoutContext: dlq.bare.length }));
  return { counters: state.counters, orders, ledger: state.ledger, invoices: state.invoices, payments: state.payments, notifications: state.notifications, dlqs };
}

/** The error, its cause chain and stacks, for `error.txt`. */
export function describeFailure(error: unknown): string {
  const lines: string[] = [];
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth += 1) {
    lines.push(depth === 0 ? '' : 'caused by:', current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.filter(Boolean).join('\n');
}

/** `read()`, or undefined when it fails or takes longer than `limitMs`. */
export async function readWithin<T>(read: () => Promise<T>, limitMs: number = DUMP_STATE_READ_LIMIT_MS): Promise<T | undefined> {
  const controller = new AbortController();
  const timeout = sleep(limitMs, undefined, { signal: controller.signal }).then(() => undefined, () => undefined);
  try {
    return await Promise.race([read().catch(() => undefined), timeout]);
  } finally {
    controller.abort();
  }
}
