import { isIP } from 'node:net'
import { isLoopbackHost } from '../loopback-host.ts'

/**
 * Where the mock may send webhooks: loopback addresses and `localhost` (names under `.localhost` too), and the
 * hosts the user listed (`--webhook-hosts`: names, `.example.dev` for a name and every name under it, or IP
 * addresses), over http or https. A mock must not become a way to send requests anywhere else.
 * Returns why a URL is refused (the delivery records it), or undefined when it may be contacted.
 */
export function createDestinationPolicy(hosts: readonly string[] = []): (url: string) => string | undefined {
  const exact = new Set(hosts.filter((host) => !host.startsWith('.')).map((host) => host.toLowerCase()))
  const suffixes = hosts.filter((host) => host.startsWith('.')).map((host) => host.toLowerCase())
  return (url) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return `not contacted: '${url}' is not a URL`
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      return `not contacted: only http and https URLs are sent webhooks, not ${parsed.protocol}`
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase()
    if (isLoopbackHost(host)) return undefined
    if (exact.has(host) || suffixes.some((suffix) => host === suffix.slice(1) || host.endsWith(suffix)))
      return undefined
    const shown = isIP(host) === 6 ? `[${host}]` : host
    return `not contacted: ${shown} is not a loopback address; start the mock with --webhook-hosts ${shown} to allow it`
  }
}
