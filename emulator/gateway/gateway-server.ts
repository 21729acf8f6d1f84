/** One gateway: an HTTP server in front of one engine, every request through the contract layer. */
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_HOST } from '../engines/ports';
import type { ContractLayer } from './contract-layer';
import { forwardToEngine } from './forward';

export interface GatewayServerOptions {
  readonly layer: ContractLayer;
  /** The engine's endpoint. */
  readonly engine: string;
  /** Where a function's requests go instead (the DynamoDB fault proxy, which then reaches the engine). @default engine */
  readonly functionEngine?: string;
}

export interface GatewayServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts a gateway on 127.0.0.1 and a free port. */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const engine = new URL(options.engine);
  const functionEngine = new URL(options.functionEngine ?? options.engine);
  const agent = new Agent({ keepAlive: true });
  const server = createServer({ keepAlive: true }, (req, res) => {
    const forward = (request: typeof req, body: Buffer, asFunction: boolean) => forwardToEngine(request, body, asFunction ? functionEngine : engine, agent);
    // An engine unreachable or gone mid-answer: the client sees a reset connection, as it would without the gateway.
    options.layer.handle(req, res, forward).catch(() => res.destroy());
  });
  const port = await listen(server);
  let stopping: Promise<void> | undefined;
  return { endpoint: `http://${LOCAL_HOST}:${port}`, stop: () => (stopping ??= close(server, agent)) };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOCAL_HOST, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server, agent: Agent): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
    agent.destroy();
  });
}
