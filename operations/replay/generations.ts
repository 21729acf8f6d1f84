/**
 * A consumer's generations as the stack declares them (its functions' `CONSUMER_NAME` and
 * `CONSUMER_GENERATION`), and the tables two of them write to: what `eo compare` reads. A
 * generation's effects go to the tables its construct gives it, under the same variables as the
 * live generation's (`ORDERS_TABLE`), so each variable naming a different table in each is one
 * table to compare; a variable naming the same table in both (the idempotency table, whose records
 * each generation keys apart) is not.
 */
import { effectTablesOf } from '../dlq/consumer-functions';
import type { ConsumerFunction, StackTopology } from '../dlq/types';
import type { TablePair } from './table-diff';

/** Two generations of one consumer and the tables to hold against each other. */
export interface GenerationPair {
  /** The consumer's name, without a generation. */
  readonly consumer: string;
  readonly live: ConsumerFunction;
  readonly next: ConsumerFunction;
  /** One per variable that names a table of the stack in the live generation and another in the next. */
  readonly tables: readonly TablePair[];
}

/** Thrown when two generations cannot be compared; nothing was read. */
export class CompareRefusedError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'CompareRefusedError';
  }
}

/**
 * Generation `next` of the consumer `name` against generation `live`.
 * @param live @default - the lowest other generation of the consumer
 * @throws CompareRefusedError for an unknown consumer or generation, or generations that share every table
 */
export function pairGenerations(topology: StackTopology, name: string, next: number, live?: number): GenerationPair {
  const generations = generationsOf(topology, name);
  const numbers = [...generations.keys()].sort((a, b) => a - b);
  if (numbers.length === 0) throw new CompareRefusedError(`no consumer of ${topology.stackName} is named ${JSON.stringify(name)} (its consumers: ${consumerNames(topology)})`);
  const known = `its generations: ${numbers.join(', ')}`;
  const nextFunction = generations.get(next);
  if (nextFunction === undefined) throw new CompareRefusedError(`${name} has no generation ${next} (${known})`);
  const against = live ?? numbers.find((generation) => generation !== next);
  if (against === undefined) throw new CompareRefusedError(`${name} has only generation ${next}: there is no other generation to compare it with`);
  if (against === next) throw new CompareRefusedError(`a generation is compared with another one (given ${next} twice)`);
  const liveFunction = generations.get(against);
  if (liveFunction === undefined) throw new CompareRefusedError(`${name} has no generation ${against} (${known})`);
  const tables = tablePairs(topology, liveFunction, nextFunction);
  if (tables.length === 0) {
    throw new CompareRefusedError(
      `generations ${against} and ${next} of ${name} write to the same tables (${tableVariables(topology, liveFunction).join(', ') || 'none named'}): ` +
        'there is nothing apart to compare. A rebuilt generation takes new tables under the same variables (docs/operations.md, "Rebuild").',
    );
  }
  return { consumer: name, live: liveFunction, next: nextFunction, tables };
}

/** The consumer's functions by generation: one each (a function with two mappings is one generation). */
function generationsOf(topology: StackTopology, name: string): Map<number, ConsumerFunction> {
  const generations = new Map<number, ConsumerFunction>();
  for (const candidate of topology.consumerFunctions) {
    if ((candidate.name ?? candidate.consumer) !== name) continue;
    const generation = candidate.generation ?? 1;
    const seen = generations.get(generation);
    if (seen !== undefined && seen.functionName !== candidate.functionName) {
      throw new CompareRefusedError(`${name} has two functions at generation ${generation} (${seen.functionName}, ${candidate.functionName}): a generation is one function`);
    }
    generations.set(generation, candidate);
  }
  return generations;
}

function tablePairs(topology: StackTopology, live: ConsumerFunction, next: ConsumerFunction): TablePair[] {
  const [liveTables, nextTables] = [effectTablesOf(topology, live), effectTablesOf(topology, next)];
  return tableVariables(topology, live).flatMap((variable) => {
    const [liveTable, nextTable] = [liveTables[variable], nextTables[variable]];
    if (liveTable === undefined || nextTable === undefined || liveTable === nextTable) return [];
    return [{ variable, live: liveTable, next: nextTable }];
  });
}

function tableVariables(topology: StackTopology, fn: ConsumerFunction): string[] {
  return Object.keys(effectTablesOf(topology, fn)).sort();
}

function consumerNames(topology: StackTopology): string {
  return [...new Set(topology.consumerFunctions.map((candidate) => candidate.name ?? candidate.consumer))].sort().join(', ') || 'none';
}
