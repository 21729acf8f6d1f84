/**
 * The callers of local mode that are not the stack's functions, each signed as the role AWS would
 * make its calls with, so that the contract layer decides them against that role as it does a
 * function's: a `Custom::AWS` resource's call (the migration's `ExecuteStatement`), made by its
 * provider function under that function's role; and a schedule's target call (the expiry's
 * `ExecuteStatement`), made by EventBridge Scheduler under the target's `RoleArn`. A caller whose
 * role the template does not hold (an imported role) has none, and signs as the local
 * administrator, which IAM does not decide.
 */
import type { NamedResource } from '../../aws/cloudformation/template';

/** A caller by the logical id its credentials are registered under (a function's or a role's), with the session name its role runs as. */
export interface ServiceCaller {
  readonly callerId: string;
  readonly sessionName: string;
}

/** A `Custom::AWS` resource's caller: its provider function (`ServiceToken` is that function's `Arn`), whose role makes the call. */
export function awsCallCaller(resource: NamedResource): ServiceCaller | undefined {
  const functionId = getAttTarget(resource.properties.ServiceToken, 'Arn');
  return functionId === undefined ? undefined : { callerId: functionId, sessionName: functionId };
}

/** A schedule's caller: the role of its target (`Target.RoleArn`), which Scheduler assumes for each run. */
export function scheduleCaller(resource: NamedResource): ServiceCaller | undefined {
  const target = resource.properties.Target as { RoleArn?: unknown } | undefined;
  const roleId = getAttTarget(target?.RoleArn, 'Arn');
  return roleId === undefined ? undefined : { callerId: roleId, sessionName: resource.logicalId };
}

/** The logical id of `{ "Fn::GetAtt": [id, attribute] }` (or `"id.attribute"`); undefined for any other value. */
function getAttTarget(value: unknown, attribute: string): string | undefined {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  const [id, name] = typeof getAtt === 'string' ? getAtt.split('.') : Array.isArray(getAtt) ? getAtt : [];
  return typeof id === 'string' && name === attribute ? id : undefined;
}
