import { createServer } from 'node:net';

/** The host every engine is reached on. Not `localhost`: Node may resolve it to ::1 first. */
export const LOCAL_HOST = '127.0.0.1';

/**
 * Asks the OS for a port that is free right now. Another process may take it before the caller
 * binds it, so callers that cannot bind port 0 themselves must retry on "address in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    // No host: bind the wildcard address, which conflicts with anything already on the port,
    // whichever interface it listens on.
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('OS returned no port'))));
    });
  });
}

/** The HTTP base URL of a local engine on `port`. */
export function localEndpoint(port: number): string {
  return `http://${LOCAL_HOST}:${port}`;
}
