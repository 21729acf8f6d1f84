/**
 * `--latency <profile>` and `--latency-scale <factor>`, the same for `eo demo`, `eo local up` and
 * `npm run bench`: the options, and the profile they name, checked together (a scale without a
 * profile is refused) so that each command says the same thing of a bad setting.
 */
import { Option, type Command } from 'commander';
import { LATENCY_DEFAULTS, LATENCY_PROFILE_NAMES, latencyProfile, type LatencyProfileLabel } from '../gateway/latency';

export { latencyLabel } from '../gateway/latency';

/** What the two options leave in a command's flags. */
export interface LatencyFlags {
  readonly latency: string;
  readonly latencyScale: string;
}

/** Adds both options to `command`. */
export function addLatencyOptions<T extends Command>(command: T): T {
  return command
    .addOption(new Option('--latency <profile>', `latency each request through the contract layer waits: ${LATENCY_PROFILE_NAMES.join(' or ')} (docs/local-mode.md)`).default(LATENCY_DEFAULTS.profile))
    .addOption(new Option('--latency-scale <factor>', `multiplies the profile's figures, > 0 and <= ${LATENCY_DEFAULTS.maxScale}`).default(String(LATENCY_DEFAULTS.scale)));
}

/**
 * The profile the flags name.
 * @throws LatencySettingError naming the bad value and what is allowed
 */
export function latencyOf(flags: LatencyFlags): LatencyProfileLabel {
  return latencyProfile(flags.latency, flags.latencyScale);
}
