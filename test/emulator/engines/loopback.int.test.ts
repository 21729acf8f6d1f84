/**
 * The engines listen on the loopback address only: they take any request unsigned and unchecked,
 * and only the contract layer's gateways (on 127.0.0.1 too) check what reaches them. Each engine
 * of this run answers on 127.0.0.1 and refuses a connection to every other address of this
 * machine: its network interfaces' addresses, and on Linux 127.0.0.2, which reaches the same
 * loopback device but not a server bound to 127.0.0.1 alone.
 */
import { connect } from 'node:net';
import { networkInterfaces, platform } from 'node:os';
import { engineEndpoints } from '../../helpers/engines';

/** The machine's own addresses outside 127.0.0.1 (IPv6 link-local ones need a zone: left out). */
function otherAddresses(): string[] {
  const interfaces = Object.values(networkInterfaces()).flatMap((addresses) => addresses ?? []);
  const external = interfaces.filter((address) => !address.internal && !address.address.startsWith('fe80:')).map((address) => address.address);
  return [...external, ...(platform() === 'linux' ? ['127.0.0.2'] : [])];
}

/** `connected`, or the error code of a refused or failed connection. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('ETIMEDOUT');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const engines = Object.entries(engineEndpoints()).map(([name, endpoint]) => [name, Number(new URL(endpoint).port)] as const);

test('this machine has an address besides 127.0.0.1 to try', () => {
  expect(otherAddresses().length).toBeGreaterThan(0);
});

test.each(engines)('%s answers on 127.0.0.1 and on no other address', async (_name, port) => {
  expect(await tryConnect('127.0.0.1', port)).toBe('connected');
  const others = await Promise.all(otherAddresses().map(async (address) => [address, await tryConnect(address, port)]));
  expect(others.filter(([, outcome]) => outcome === 'connected')).toEqual([]);
});
