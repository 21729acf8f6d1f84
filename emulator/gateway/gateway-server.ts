/**
 * One gateway: an HTTP server in front of one engine, every request through the contract layer.
 * The engine is a process reached over HTTP, or one in this process that answers the layer itself
 * (the Lambda API, in front of the local functions).
 */
import { Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_HOST } from '../engines/ports';
import type { RestApi } from './aws-request';
import type { ContractLayer, EngineForward } from './contract-layer';
import { forwardToEngine } from './forward';

/** An engine reached over HTTP. */
export interface HttpEngine {
  /** The engine's endpoint. */
  readonly engine: string;
  /** Where a function's requests go instead (the DynamoDB fault proxy, which then reaches the engine). @default engine */
  readonly functionEngine?: string;
}

/** An engine in this process: `answer` is handed every request the layer lets through. */
export interface InProcessEngine {
  readonly answer: EngineForward;
}

/** What a gateway stands in front of. */
export type GatewayEngine = HttpEngine | InProcessEngine;

export type GatewayServerOptions = {
  readonly layer: ContractLayer;
  /** The REST API the engine serves besides the JSON and query protocols (S3 on fauxqs's port, Lambda's). @default 'none' */
  readonly rest?: RestApi;
} & GatewayEngine;

export interface GatewayServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts a gateway on 127.0.0.1 and a free port. */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const agent = new Agent({ keepAlive: true });
  const forward = 'answer' in options ? options.answer : httpForward(options, agent);
  const server = createServer({ keepAlive: true }, (req, res) => {
    // An engine unreachable or gone mid-answer: the client sees a reset connection, as it would without the gateway.
    options.layer.handle(req, res, forward, options.rest).catch(() => res.destroy());
  });
  const port = await listen(server);
  let stopping: Promise<void> | undefined;
  return { endpoint: `http://${LOCAL_HOST}:${port}`, stop: () => (stopping ??= close(server, agent)) };
}

function httpForward(options: HttpEngine, agent: Agent): EngineForward {
  const engine = new URL(options.engine);
  const functionEngine = new URL(options.functionEngine ?? options.engine);
  return (request, body, asFunction) => forwardToEngine(request, body, asFunction ? functionEngine : engine, agent);
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
