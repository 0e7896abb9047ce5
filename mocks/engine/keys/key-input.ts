import { parseCidr } from '../cidr.ts'
import type { Clock } from '../clock.ts'
import { expandPermissions, PUBLISHABLE_SCOPES, SCOPES, type Scope } from '../permissions.ts'
import { parseTimestamp } from '../timestamp.ts'
import type { KeyInput } from './key-types.ts'

/** A key's input as the dashboard (the control plane) takes it: the scopes it grants and when it expires. */
export type CheckedKeyInput =
  | { ok: true; scopes: Scope[]; expiresAt: string | null }
  | { ok: false; param: string; code: string; message: string }

const fail = (param: string, code: string, message: string) => ({ ok: false as const, param, code, message })

/**
 * Checks a new key's input (docs/decisions/003-api-keys.md, 004-permissions.md): known scopes (the groups
 * `read` and `write` expanded), only `agents:read` for a publishable key, `allowed_ips` as addresses or CIDR
 * ranges, `allowed_origins` as origins, `expires_at` an instant in the future.
 */
export function checkKeyInput(input: KeyInput, clock: Clock): CheckedKeyInput {
  let scopes: Scope[]
  if (input.permissions === undefined)
    scopes = input.type === 'secret' ? [...SCOPES] : [...PUBLISHABLE_SCOPES]
  else {
    const expanded = expandPermissions(input.permissions)
    if (!expanded.ok) return fail('permissions', 'enum', `Unknown permission '${expanded.unknown}'.`)
    scopes = expanded.scopes
  }
  if (input.type === 'publishable' && scopes.some((scope) => !PUBLISHABLE_SCOPES.includes(scope)))
    return fail('permissions', 'invalid', 'A publishable key may hold only agents:read.')
  for (const [i, ip] of (input.restrictions?.allowed_ips ?? []).entries())
    if (!parseCidr(ip))
      return fail(`restrictions.allowed_ips.${i}`, 'format', `'${ip}' is not an IP address or CIDR.`)
  for (const [i, origin] of (input.restrictions?.allowed_origins ?? []).entries())
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      return fail(
        `restrictions.allowed_origins.${i}`,
        'format',
        `'${origin}' is not an origin like https://app.example.com.`,
      )
  // Any RFC 3339 offset is accepted and kept in the contract's form (UTC, Z, whole seconds).
  const expires = input.restrictions?.expires_at
  if (typeof expires !== 'string') return { ok: true, scopes, expiresAt: null }
  const parsed = parseTimestamp(expires)
  if (!parsed.ok) return fail('restrictions.expires_at', 'format', parsed.message)
  if (parsed.ms <= clock.now())
    return fail(
      'restrictions.expires_at',
      'invalid',
      `restrictions.expires_at must be in the future; the mock clock reads ${clock.iso()}.`,
    )
  return { ok: true, scopes, expiresAt: parsed.iso }
}
