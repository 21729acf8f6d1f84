/**
 * Lambda's Invoke and the action it needs (Lambda Developer Guide, "Fine-tuning the Resources and
 * Conditions sections of policies"): `lambda:InvokeFunction` on the function, "restricted to a
 * specific function by function, version, or alias ARN": the ARN the request names, qualified
 * when it names a version or alias. A name without region or account is the caller's.
 */
import { functionArn, parseFunctionName } from '../../aws/lambda/function-name';
import { UnknownResourceError, UnsupportedOperationError } from './errors';
import { requiredString, type PermissionLookups, type RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

/** The permissions of a Lambda request; `input` is Invoke's `FunctionName` and `Qualifier`. */
export function lambdaPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  if (name !== 'Invoke') throw new UnsupportedOperationError(AwsService.LAMBDA, name);
  const functionName = requiredString(input, 'FunctionName', { service: AwsService.LAMBDA, name });
  const qualifier = typeof input.Qualifier === 'string' ? input.Qualifier : undefined;
  const parsed = parseFunctionName(functionName, qualifier);
  if (!parsed.ok) throw new UnknownResourceError(AwsService.LAMBDA, name, parsed.message);
  return [{ action: 'lambda:InvokeFunction', resource: functionArn(parsed.reference, lookups) }];
}
