/** Sends a request on to its engine and brings the whole answer back, so that the gateway can read it. */
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** An engine's answer, buffered. */
export interface EngineAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Forwards `body` (the request's own, or the gateway's rewrite of it) with the request's headers. */
export function forwardToEngine(req: IncomingMessage, body: Buffer, target: URL, agent: Agent): Promise<EngineAnswer> {
  const headers = { ...req.headers, 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const upstream = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }));
      response.once('error', reject);
    });
    upstream.once('error', reject);
    upstream.end(body);
  });
}

/** The answer as JSON, or undefined when it is not JSON (an XML or an empty answer). */
export function jsonOf(answer: EngineAnswer): Readonly<Record<string, unknown>> | undefined {
  try {
    const value = JSON.parse(answer.body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer with a new JSON body (its length fixed). */
export function withJsonBody(answer: EngineAnswer, value: unknown): EngineAnswer {
  const body = Buffer.from(JSON.stringify(value));
  return { ...answer, headers: { ...answer.headers, 'content-length': String(body.length) }, body };
}
