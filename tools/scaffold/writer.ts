/**
 * Applies a plan's file changes all or nothing: if a write fails part way, the files it created
 * are deleted, the files it updated get their previous content back, and the directories it made
 * are removed again.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { absolute } from './layout';
import type { FileChange } from './plan';

/** Thrown when the changes could not be applied; `rolledBack` says whether the tree is as before. */
export class WriteError extends Error {
  public constructor(
    message: string,
    public readonly rolledBack: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WriteError';
  }
}

interface Undo {
  readonly label: string;
  readonly run: () => void;
}

/** Writes every change, or none. @throws WriteError */
export function applyChanges(root: string, changes: readonly FileChange[]): void {
  const undo: Undo[] = [];
  let current = '';
  try {
    for (const change of changes) {
      current = change.path;
      const target = absolute(root, change.path);
      makeDirectories(path.dirname(target), undo);
      if (change.kind === 'create') create(target, change, undo);
      else update(target, change, undo);
    }
  } catch (error) {
    const failedUndo = rollBack(undo);
    const reason = error instanceof Error ? error.message : String(error);
    const state = failedUndo.length === 0 ? 'nothing was changed' : `could not undo: ${failedUndo.join('; ')}`;
    throw new WriteError(`writing ${current} failed (${reason}); ${state}`, failedUndo.length === 0, { cause: error });
  }
}

function makeDirectories(dir: string, undo: Undo[]): void {
  if (existsSync(dir)) return;
  makeDirectories(path.dirname(dir), undo);
  mkdirSync(dir);
  undo.push({ label: `remove directory ${dir}`, run: () => rmdirSync(dir) });
}

function create(target: string, change: FileChange, undo: Undo[]): void {
  // `wx`: fail rather than overwrite a file that appeared after the plan was made.
  writeFileSync(target, change.content, { flag: 'wx' });
  undo.push({ label: `delete ${change.path}`, run: () => rmSync(target) });
}

function update(target: string, change: FileChange, undo: Undo[]): void {
  const before = readFileSync(target, 'utf8');
  if (change.previous !== undefined && before !== change.previous) throw new Error(`${change.path} changed while the consumer was being generated`);
  // Written beside it and renamed over it, so that the file is never half written.
  const temporary = `${target}.eo-new-${process.pid}`;
  writeFileSync(temporary, change.content, { flag: 'wx' });
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  undo.push({ label: `restore ${change.path}`, run: () => writeFileSync(target, before) });
}

/** Undoes in reverse order; returns what could not be undone. */
function rollBack(undo: readonly Undo[]): string[] {
  const failed: string[] = [];
  for (const step of [...undo].reverse()) {
    try {
      step.run();
    } catch {
      failed.push(step.label);
    }
  }
  return failed;
}
