/**
 * The status a `Prefer` header asks for with Prism's `code=<status>` preference (RFC 7240 syntax:
 * `Prefer: code=404, dynamic=true`; names are case-insensitive, values may be quoted). `malformed` when the
 * `code` value is not a three-digit status; undefined when the header asks for no code.
 */
export function preferredCode(header: string | undefined): number | 'malformed' | undefined {
  if (header === undefined) return undefined
  for (const preference of header.split(',')) {
    const [token = ''] = preference.split(';')
    const equals = token.indexOf('=')
    const name = (equals === -1 ? token : token.slice(0, equals)).trim().toLowerCase()
    if (name !== 'code') continue
    const value = equals === -1 ? '' : token.slice(equals + 1).trim()
    const unquoted = /^"(.*)"$/.exec(value)?.[1] ?? value
    return /^[1-5]\d\d$/.test(unquoted) ? Number(unquoted) : 'malformed'
  }
  return undefined
}
