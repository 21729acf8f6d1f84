/**
 * `--latency` and `--latency-scale` as the commands parse them: the default is no profile, a good
 * pair names the profile, and a bad one is refused with the value and what is allowed.
 */
import { Command } from 'commander';
import { addLatencyOptions, latencyOf, type LatencyFlags } from '../../../emulator/cli/latency-options';
import { LatencySettingError } from '../../../emulator/gateway/latency';

function parse(args: readonly string[]): LatencyFlags {
  const command = addLatencyOptions(new Command('test').exitOverride());
  command.parse([...args], { from: 'user' });
  return command.opts<LatencyFlags>();
}

test('no flags: the none profile', () => {
  expect(latencyOf(parse([]))).toEqual({ name: 'none', scale: 1 });
});

test('--latency aws --latency-scale 0.5', () => {
  expect(latencyOf(parse(['--latency', 'aws', '--latency-scale', '0.5']))).toEqual({ name: 'aws', scale: 0.5 });
});

test.each([
  [['--latency', 'fast'], 'unknown latency profile "fast": expected one of none, aws'],
  [['--latency', 'aws', '--latency-scale', 'x'], 'latency scale must be a number > 0 and <= 100 (given "x")'],
  [['--latency-scale', '2'], 'a latency scale applies to a profile, and the profile is none (given scale 2): add --latency aws'],
])('refuses %p', (args, message) => {
  expect(() => latencyOf(parse(args))).toThrow(new LatencySettingError(message));
});
