/**
 * Lambda's Invoke API in front of the stack's local functions: what stands behind the Lambda
 * gateway where an engine stands behind the others. The contract layer has decided the request
 * (signature, IAM, the payload's rules) before it gets here; this finds the function and runs it
 * synchronously, through the same invoker its event source mappings use, so that both share its
 * execution environments and its concurrency, as on AWS.
 *
 * Served: `RequestResponse` (the default) and `DryRun` (a 204 once the function is found: the
 * layer has already decided the permission). Refused with `InvalidParameterValueException`:
 * `Event`, because Lambda's asynchronous invocation (its internal queue, two retries, maximum
 * event age, destinations) is not emulated and a 202 would promise what never happens.
 * Local mode has no versions or aliases: a qualifier other than `$LATEST` names no function.
 */
import type { IncomingMessage } from 'node:http';
import type { InvokeOptions, Invoker } from '../types';
import { decodeClientContext } from '../contract';
import { functionArn, LATEST_VERSION, parseFunctionName, type FunctionReference, type FunctionScope } from '../../aws/lambda/function-name';
import type { EngineAnswer } from './forward';
import { dryRunAnswer, invocationAnswer, lambdaServiceError } from './lambda-answers';
import { lambdaInvokeOf, type LambdaInvokeRequest } from './lambda-request';

/** A function the API serves: its physical name, and how to run it. */
export interface ServedFunction {
  readonly name: string;
  readonly invoke: Invoker;
}

export class LocalLambdaService {
  private readonly functions = new Map<string, Invoker>();

  /** @param scope the local region and account: a function ARN naming others names no local function */
  public constructor(private readonly scope: FunctionScope) {}

  /** Serves `functions` from now on, beside those served already. */
  public serve(functions: Iterable<ServedFunction>): void {
    for (const fn of functions) this.functions.set(fn.name, fn.invoke);
  }

  /** Answers one request the layer admitted; an engine's `forward`, so a gateway can stand in front of it. */
  public readonly answer = async (req: IncomingMessage, body: Buffer): Promise<EngineAnswer> => {
    const request = lambdaInvokeOf(req, body);
    if (!request) return lambdaServiceError('UnknownOperationException', 404, `local mode's Lambda API serves only Invoke (POST /2015-03-31/functions/{FunctionName}/invocations), not ${req.method ?? ''} ${req.url ?? ''}`);
    const parsed = parseFunctionName(request.FunctionName, request.Qualifier);
    if (!parsed.ok) return lambdaServiceError(parsed.code, 400, parsed.message);
    const invoke = this.find(parsed.reference);
    if (!invoke) return lambdaServiceError('ResourceNotFoundException', 404, `Function not found: ${functionArn(parsed.reference, this.scope)}`, 'Message');
    return this.run(request, invoke);
  };

  private async run(request: LambdaInvokeRequest, invoke: Invoker): Promise<EngineAnswer> {
    switch (request.InvocationType ?? 'RequestResponse') {
      case 'RequestResponse':
        // The contract layer refused a payload that is not JSON; no payload is `{}` to the function.
        return invocationAnswer(await invoke(request.Payload.length === 0 ? undefined : JSON.parse(request.Payload.toString('utf8')), invokeOptions(request)));
      case 'DryRun':
        return dryRunAnswer();
      case 'Event':
        return lambdaServiceError('InvalidParameterValueException', 400, 'local mode serves InvocationType RequestResponse and DryRun only: Event (asynchronous invocation, with its retries, maximum event age and destinations) is not emulated');
      default:
        return lambdaServiceError('InvalidParameterValueException', 400, `InvocationType must be RequestResponse, Event or DryRun (given ${request.InvocationType})`);
    }
  }

  /** The local function a reference names: in the local region and account, unqualified or `$LATEST`. */
  private find(reference: FunctionReference): Invoker | undefined {
    const local = (reference.region ?? this.scope.region) === this.scope.region && (reference.accountId ?? this.scope.accountId) === this.scope.accountId;
    const latest = reference.qualifier === undefined || reference.qualifier === LATEST_VERSION;
    return local && latest && (reference.partition ?? 'aws') === (this.scope.partition ?? 'aws') ? this.functions.get(reference.name) : undefined;
  }
}

/** What the request carries for the function besides its event; the contract layer checked the client context. */
function invokeOptions(request: LambdaInvokeRequest): InvokeOptions {
  return request.ClientContext === undefined ? {} : { clientContext: decodeClientContext(request.ClientContext) };
}
