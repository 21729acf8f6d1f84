import type { EngineName } from './types';

/**
 * An engine that can fail to start: the ones `startEngines` starts, and PostgreSQL, which is started
 * on its own (`startPostgres`) until a stack asks for it.
 */
export type EngineKind = EngineName | 'postgres';

/** Base class for every error the local engines raise. */
export class EngineError extends Error {
  /** The engine that failed. */
  readonly engine: EngineKind;

  constructor(engine: EngineKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineError';
    this.engine = engine;
  }
}

/**
 * An engine did not come up: it exited early, or did not answer before its startup deadline.
 * `output` holds the tail of the process's stdout and stderr, so the cause is visible without
 * rerunning it.
 */
export class EngineStartError extends EngineError {
  readonly port: number | undefined;
  readonly output: string;

  constructor(
    engine: EngineKind,
    message: string,
    context: { port?: number; output: string },
    options?: { cause?: unknown },
  ) {
    super(engine, withOutput(message, context.output), options);
    this.name = 'EngineStartError';
    this.port = context.port;
    this.output = context.output;
  }
}

/**
 * The engine could not bind its port. With a fixed port, something else listens there; with
 * picked ports, another process took each one between our probe and the engine's bind.
 */
export class PortInUseError extends EngineStartError {
  constructor(engine: EngineKind, port: number, output: string, fixedPort: boolean) {
    const advice = fixedPort
      ? `Stop whatever listens there (\`ss -ltnp 'sport = :${port}'\` shows it), or let a free port be picked.`
      : 'Every free port we picked was taken before the engine bound it; retry, or stop whatever is grabbing ports.';
    super(engine, `${engine} could not bind port ${port}: address already in use. ${advice}`, { port, output });
    this.name = 'PortInUseError';
  }
}

/** `java` is not on the PATH; DynamoDB Local cannot start without it. */
export class JavaNotFoundError extends EngineError {
  constructor(options?: { cause?: unknown }) {
    super(
      'dynamodb',
      'DynamoDB Local needs Java 17 or later, and `java` was not found on the PATH. Install a Java ' +
        'runtime (on Debian or Ubuntu: `apt-get install openjdk-17-jre-headless`), check that ' +
        '`java -version` works in this shell, then run the command again. (In code, ' +
        '`startEngines({ dynamodb: false })` starts the other engines without it.)',
      options,
    );
    this.name = 'JavaNotFoundError';
  }
}

function withOutput(message: string, output: string): string {
  const trimmed = output.trim();
  return trimmed === '' ? message : `${message}\n--- process output (tail) ---\n${trimmed}`;
}
