/**
 * A guard against DNS rebinding: a page on `evil.example` whose name the attacker re-points at
 * 127.0.0.1 is same-origin with the mock for the browser, but its requests still carry
 * `Host: evil.example`. Only names that can never be re-pointed by someone else are answered.
 */

/** A host name as the URL parser leaves it (lower case, IDNA), or an address in brackets/dots. */
type ParsedHost = { kind: 'address' } | { kind: 'name'; name: string }

/** Characters a `Host` value (`uri-host [":" port]`) never holds (anything but printable ASCII, and
 * delimiters); the URL parser would accept some of them. */
const NOT_IN_HOST = /[^\x21-\x7e]|[/?#@\\,;"'<>`{}|^%]/
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/
const LABEL = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/

/** The host of a `Host` header value, or undefined when it is not a well-formed one. */
function parseHost(value: string): ParsedHost | undefined {
  if (value === '' || NOT_IN_HOST.test(value)) return undefined
  let hostname: string
  try {
    hostname = new URL(`http://${value}/`).hostname
  } catch {
    return undefined
  }
  // An address is never the answer of someone's DNS server: nothing to rebind.
  if (hostname.startsWith('[') || IPV4.test(hostname)) return { kind: 'address' }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (!name.split('.').every((label) => LABEL.test(label))) return undefined
  return { kind: 'name', name }
}

/**
 * One `--allowed-hosts` entry, normalised (lower case): a host name (`mock.internal`), or a name with
 * a leading dot for it and every name under it (`.dev.example`: `dev.example`, `a.dev.example`).
 * Undefined for anything else: a port, a scheme, `*`, or a wildcard over a top-level name (`.com`).
 */
export function parseAllowedHost(value: string): string | undefined {
  const wildcard = value.startsWith('.')
  const name = (wildcard ? value.slice(1) : value).toLowerCase()
  const labels = name.split('.')
  if (!labels.every((label) => LABEL.test(label))) return undefined
  if (wildcard && labels.length < 2) return undefined
  return wildcard ? `.${name}` : name
}

/**
 * A check of `Host` header values: true for a request without one (no browser sends that), for
 * `localhost` and names under `.localhost` (RFC 6761: they never leave the machine), for IP
 * addresses, and for the given names (`parseAllowedHost` forms). The port is not compared.
 */
export function createHostCheck(allowedHosts: readonly string[]): (host: string | undefined) => boolean {
  const exact = new Set(allowedHosts.filter((host) => !host.startsWith('.')))
  const suffixes = allowedHosts.filter((host) => host.startsWith('.'))
  return (host) => {
    if (host === undefined) return true
    const parsed = parseHost(host)
    if (!parsed) return false
    if (parsed.kind === 'address') return true
    const { name } = parsed
    if (name === 'localhost' || name.endsWith('.localhost') || exact.has(name)) return true
    return suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix))
  }
}
