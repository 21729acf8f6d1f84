/**
 * How a bench gateway runs as a child process (`gateway-process.ts` starts it): it tells its parent
 * `{ endpoint }` once listening, and stops on the parent's `stop` or when the parent goes.
 */

/** What a child serves: its endpoint, and how it stops. */
export interface ChildGateway {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts the gateway and serves the parent; a failure to start is told on stderr under `label`, exit 1. */
export function serveParent(label: string, start: () => Promise<ChildGateway>): void {
  start()
    .then((gateway) => {
      const stop = (): void => {
        void gateway.stop().finally(() => process.exit(0));
      };
      process.on('message', (message) => {
        if (message === 'stop') stop();
      });
      process.on('disconnect', stop);
      process.send?.({ endpoint: gateway.endpoint });
    })
    .catch((error: unknown) => {
      process.stderr.write(`${label}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
