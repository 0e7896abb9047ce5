import { isIP } from 'node:net'
import { parseIp } from '../engine/cidr.ts'

/**
 * Whether a `--host` value binds to loopback only (and whether a webhook destination is on this machine):
 * `localhost` (and names under `.localhost`), any of 127.0.0.0/8, `::1`, or 127.0.0.0/8 as an IPv4-mapped
 * IPv6 address in any spelling (`::ffff:127.0.0.1`, `::ffff:7f00:1` as a URL writes it). Anything else
 * (`0.0.0.0`, `::`, a LAN address, a host name) may be reachable from other machines, and the CLI warns about it.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIP(bare) === 0) return false
  const bytes = parseIp(bare)
  if (!bytes) return false
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0)
  // ::1
  if (zeros(0, 15) && bytes[15] === 1) return true
  // ::ffff:127.x.y.z (an IPv4 address is parsed as IPv4-mapped)
  return zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff && bytes[12] === 127
}

/** Whether a `--host` value is the wildcard address (`0.0.0.0`, `::`): every address of the machine. */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  return bare === '0.0.0.0' || /^[0:]+$/.test(bare)
}
