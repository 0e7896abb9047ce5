/** The eight scopes of docs/decisions/004-permissions.md, in the order the spec lists their capabilities. */
export const SCOPES = [
  'agents:read',
  'call_logs:read',
  'analytics:read',
  'integrations:read',
  'agents:write',
  'integrations:write',
  'team_members:write',
  'resources:delete',
] as const

export type Scope = (typeof SCOPES)[number]

/** The spec's permission groups, accepted at key creation and expanded to their scopes. */
export const SCOPE_GROUPS = {
  read: ['agents:read', 'call_logs:read', 'analytics:read', 'integrations:read'],
  write: ['agents:write', 'integrations:write', 'team_members:write', 'resources:delete'],
} as const satisfies Record<string, readonly Scope[]>

/** Scopes a publishable key may hold. */
export const PUBLISHABLE_SCOPES: readonly Scope[] = ['agents:read']

/** Agent fields left out of responses to publishable keys. */
export const SENSITIVE_AGENT_FIELDS = ['system_prompt', 'webhook_url', 'metadata'] as const

const IMPLIED: Partial<Record<Scope, Scope>> = {
  'agents:write': 'agents:read',
  'integrations:write': 'integrations:read',
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

export type ExpandResult = { ok: true; scopes: Scope[] } | { ok: false; unknown: string }

/** Expands group names and de-duplicates, keeping the canonical order of `SCOPES`. */
export function expandPermissions(requested: readonly string[]): ExpandResult {
  const set = new Set<Scope>()
  for (const entry of requested) {
    if (entry === 'read' || entry === 'write') {
      for (const scope of SCOPE_GROUPS[entry]) set.add(scope)
      continue
    }
    if (!isScope(entry)) return { ok: false, unknown: entry }
    set.add(entry)
  }
  return { ok: true, scopes: SCOPES.filter((scope) => set.has(scope)) }
}

/** Whether the granted scopes cover `needed`, counting the implications (`agents:write` reads agents). */
export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  if (granted.includes(needed)) return true
  return granted.some((scope) => IMPLIED[scope] === needed)
}

/** The first scope of `needed` that `granted` lacks, or undefined when all are held. */
export function missingScope(granted: readonly Scope[], needed: readonly Scope[]): Scope | undefined {
  return needed.find((scope) => !hasScope(granted, scope))
}
