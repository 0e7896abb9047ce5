import { isIP } from 'node:net'

/**
 * Whether a `--host` value binds to loopback only: `localhost`, any of 127.0.0.0/8, `::1`, or an
 * IPv4-mapped loopback address. Anything else (`0.0.0.0`, `::`, a LAN address, a host name) may be
 * reachable from other machines, and the CLI warns about it.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  const address = bare.replace(/^::ffff:/, '')
  if (isIP(address) === 4) return address.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(bare)
  return false
}

/** Whether a `--host` value is the wildcard address (`0.0.0.0`, `::`): every address of the machine. */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1')
  return bare === '0.0.0.0' || /^[0:]+$/.test(bare)
}
