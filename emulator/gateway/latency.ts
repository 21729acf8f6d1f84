/**
 * A latency profile for the contract layer: with `aws`, every request waits a latency drawn for
 * its operation from a log-normal through the figure's median and p99 (./latency-profile.ts),
 * from a seeded generator so that a seed reproduces a run's waits. The wait runs beside the
 * engine's own work, not after it: an answer comes no sooner than the drawn latency, and a long
 * poll that waits for messages gets nothing on top of its wait. With `none` (the default) nothing
 * waits. The SDK's connection pool needs no model: the clients of local mode and the bench are
 * the SDK's own, with its default agent of 50 sockets per host, so requests past 50 in flight wait
 * for a socket here as on AWS (test/emulator/gateway/connection-pool.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '../faults/random';
import type { Random } from '../types';
import { AWS_LATENCY_FIGURES, DEFAULT_LATENCY, type LatencyFigure } from './latency-profile';

export const LATENCY_PROFILE_NAMES = ['none', 'aws'] as const;
export type LatencyProfileName = (typeof LATENCY_PROFILE_NAMES)[number];

/** The profile and scale when none is asked for, and the bounds of a scale. */
export const LATENCY_DEFAULTS = { profile: 'none', scale: 1, seed: 1, maxScale: 100 } as const;

/** Which profile a run used, as its report says it: `{ name: 'aws', scale: 0.5 }` or `{ name: 'none', scale: 1 }`. */
export interface LatencyProfileLabel {
  readonly name: LatencyProfileName;
  readonly scale: number;
}

/** A latency setting that cannot be used: an unknown profile, or a scale out of range. */
export class LatencySettingError extends Error {
  public override readonly name = 'LatencySettingError';
}

/**
 * Checks a profile name and a scale as a command line gives them.
 * @param scale a number, or its text as typed; 1 when not given
 * @throws LatencySettingError naming the given value and what is allowed
 * @example latencyProfile('aws', '0.5') // { name: 'aws', scale: 0.5 }
 */
export function latencyProfile(name: string, scale: number | string = LATENCY_DEFAULTS.scale): LatencyProfileLabel {
  if (!(LATENCY_PROFILE_NAMES as readonly string[]).includes(name)) {
    throw new LatencySettingError(`unknown latency profile "${name}": expected one of ${LATENCY_PROFILE_NAMES.join(', ')}`);
  }
  const value = typeof scale === 'number' ? scale : scale.trim() === '' ? Number.NaN : Number(scale);
  if (!Number.isFinite(value) || value <= 0 || value > LATENCY_DEFAULTS.maxScale) {
    throw new LatencySettingError(`latency scale must be a number > 0 and <= ${LATENCY_DEFAULTS.maxScale} (given "${String(scale)}")`);
  }
  if (name === 'none' && value !== LATENCY_DEFAULTS.scale) {
    throw new LatencySettingError(`a latency scale applies to a profile, and the profile is none (given scale ${value}): add --latency aws`);
  }
  return { name: name as LatencyProfileName, scale: value };
}

/** One line for a report: `none`, or `aws (scale 0.5)`. */
export function latencyLabel(profile: LatencyProfileLabel): string {
  return profile.name === 'none' ? 'none' : `${profile.name} (scale ${profile.scale})`;
}

/** What the model reads of a request: its operation, and a transaction's actions. */
export interface LatencyRequest {
  readonly service: string;
  readonly operation: string;
  readonly input?: unknown;
}

export interface LatencyModelOptions {
  /** Seeds the draws. @default LATENCY_DEFAULTS.seed */
  readonly seed?: number;
  /** Draws from this instead of a seeded generator (tests). @default - seededRandom(seed) */
  readonly random?: Random;
}

/** The standard normal's 99th percentile: a log-normal's p99 is its median times exp(sigma * Z99). */
const Z99 = 2.326_347_874;

export class LatencyModel {
  private readonly random: Random;

  public constructor(
    public readonly profile: LatencyProfileLabel = { name: 'none', scale: LATENCY_DEFAULTS.scale },
    options: LatencyModelOptions = {},
  ) {
    this.random = options.random ?? seededRandom(options.seed ?? LATENCY_DEFAULTS.seed);
  }

  /** The milliseconds this request waits: 0 with the `none` profile. */
  public draw(request: LatencyRequest): number {
    if (this.profile.name === 'none') return 0;
    return drawLatency(latencyFigureOf(request.service, request.operation), actionsOf(request), this.profile.scale, this.random);
  }

  /** Starts the request's wait now; resolves when it is over (at once with `none`). */
  public wait(request: LatencyRequest | undefined): Promise<void> {
    const ms = request === undefined ? this.drawDefault() : this.draw(request);
    return ms > 0 ? sleep(ms) : Promise.resolve();
  }

  private drawDefault(): number {
    return this.profile.name === 'none' ? 0 : drawLatency(DEFAULT_LATENCY, 0, this.profile.scale, this.random);
  }
}

/** The profile's figure for an operation, or the default. */
export function latencyFigureOf(service: string, operation: string): LatencyFigure {
  return (AWS_LATENCY_FIGURES as Readonly<Record<string, LatencyFigure>>)[`${service}:${operation}`] ?? DEFAULT_LATENCY;
}

/**
 * One draw from the log-normal whose median is the figure's (grown by its actions) and whose p99
 * keeps the figure's ratio to it; `scale` multiplies both.
 */
export function drawLatency(figure: LatencyFigure, actions: number, scale: number, random: Random): number {
  const median = (figure.medianMs + (figure.perActionMs ?? 0) * actions) * scale;
  const sigma = Math.log(figure.p99Ms / figure.medianMs) / Z99;
  return median * Math.exp(sigma * standardNormal(random));
}

/** Box-Muller: one standard normal from two uniforms in [0, 1). */
function standardNormal(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A transaction's actions (`TransactItems`); 0 for any other request. */
function actionsOf(request: LatencyRequest): number {
  const items = (request.input as { TransactItems?: unknown } | undefined)?.TransactItems;
  return Array.isArray(items) ? items.length : 0;
}
