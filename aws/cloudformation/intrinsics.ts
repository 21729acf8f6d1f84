/**
 * Resolves the intrinsic functions a CDK template uses (`Ref`, `Fn::GetAtt`, `Fn::Join`,
 * `Fn::Sub`, `Fn::Select`, `Fn::Split`) against the resources local mode created.
 */

/** What a logical id stands for locally: its `Ref` value and its attributes. */
export interface LocalResource {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface ResolveContext {
  readonly resources: ReadonlyMap<string, LocalResource>;
  readonly pseudo: Readonly<Record<string, string>>;
}

/** Thrown for an intrinsic local mode cannot resolve; names the expression. */
export class UnresolvableError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'UnresolvableError';
  }
}

/** Resolves a template value (string, intrinsic, array or object) to plain values. */
export function resolveValue(value: unknown, context: ResolveContext): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, context));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const [first] = entries;
  if (entries.length === 1 && first && isIntrinsic(first[0])) return resolveIntrinsic(first[0], first[1], context);
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveValue(item, context)]));
}

/** Resolves to a string. @throws UnresolvableError when the value is not one */
export function resolveString(value: unknown, context: ResolveContext): string {
  const resolved = resolveValue(value, context);
  if (typeof resolved === 'string') return resolved;
  if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
  throw new UnresolvableError(`expected a string, got ${JSON.stringify(resolved)}`);
}

/** Resolves to a string, or undefined when the value is absent or does not resolve (an unknown resource, an unsupported function). */
export function tryResolveString(value: unknown, context: ResolveContext): string | undefined {
  if (value === undefined) return undefined;
  try {
    return resolveString(value, context);
  } catch {
    return undefined;
  }
}

function isIntrinsic(key: string): boolean {
  return key === 'Ref' || key.startsWith('Fn::');
}

function resolveIntrinsic(name: string, argument: unknown, context: ResolveContext): unknown {
  switch (name) {
    case 'Ref':
      return ref(String(argument), context);
    case 'Fn::GetAtt':
      return getAtt(argument, context);
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown[]];
      return (resolveValue(parts, context) as unknown[]).map(String).join(separator);
    }
    case 'Fn::Sub':
      return substitute(argument, context);
    case 'Fn::Select': {
      const [index, list] = argument as [unknown, unknown];
      return (resolveValue(list, context) as unknown[])[Number(resolveValue(index, context))];
    }
    case 'Fn::Split': {
      const [separator, source] = argument as [string, unknown];
      return resolveString(source, context).split(separator);
    }
    default:
      throw new UnresolvableError(`local mode does not resolve ${name}`);
  }
}

function ref(logicalId: string, context: ResolveContext): string {
  const pseudo = context.pseudo[logicalId];
  if (pseudo !== undefined) return pseudo;
  const resource = context.resources.get(logicalId);
  if (!resource) throw new UnresolvableError(`Ref to ${logicalId}, which local mode did not create`);
  return resource.ref;
}

function getAtt(argument: unknown, context: ResolveContext): string {
  const [logicalId, attribute] = typeof argument === 'string' ? argument.split('.', 2) : (argument as [string, string]);
  const value = context.resources.get(logicalId ?? '')?.attributes[attribute ?? ''];
  if (value === undefined) throw new UnresolvableError(`Fn::GetAtt ${logicalId}.${attribute} is not known locally`);
  return value;
}

function substitute(argument: unknown, context: ResolveContext): string {
  const [template, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, Record<string, unknown>]);
  return template.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
    if (Object.prototype.hasOwnProperty.call(variables, name)) return resolveString(variables[name], context);
    return name.includes('.') ? getAtt(name, context) : ref(name, context);
  });
}
