import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import type { Plan, ScopedKey, TargetConfig } from './target.ts'

/** A configuration mistake, shown as one line (exit code 2). */
export class TargetError extends Error {}

const READ = ['agents:read', 'call_logs:read', 'analytics:read', 'integrations:read']
const WRITE = ['agents:write', 'integrations:write', 'team_members:write', 'resources:delete']

/** `agents:read,call_logs:read=sk-svc-...` as a scoped key; `read` and `write` expand to their groups. */
export function parseScopedKey(text: string): ScopedKey {
  const at = text.lastIndexOf('=')
  if (at < 0)
    throw new TargetError(
      `A scoped key is '<scopes>=<key>' (e.g. 'agents:read,analytics:read=sk-svc-...'), got '${text.slice(0, 12)}...'.`,
    )
  const scopes = text
    .slice(0, at)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s) => (s === 'read' ? READ : s === 'write' ? WRITE : s === 'none' ? [] : [s]))
  return { scopes: [...new Set(scopes)], key: text.slice(at + 1).trim() }
}

/** `https://app.example.com=pk-svc-...` as a key restricted to that origin. */
export function parseOriginKey(text: string): { origin: string; key: string } {
  const at = text.lastIndexOf('=')
  if (at < 0 || !/^https?:\/\/[^/\s]+$/.test(text.slice(0, at)))
    throw new TargetError("An origin key is '<origin>=<key>' (e.g. 'https://app.example.com=sk-svc-...').")
  return { origin: text.slice(0, at), key: text.slice(at + 1).trim() }
}

const PLANS: readonly Plan[] = ['free', 'pro', 'enterprise']

/** A plan's name, or undefined for none; throws TargetError for any other word. */
export function plan(value: string | undefined): Plan | undefined {
  if (value === undefined || value === '') return undefined
  if (!PLANS.includes(value as Plan))
    throw new TargetError(`The plan must be free, pro or enterprise, got '${value}'.`)
  return value as Plan
}

function integer(name: string, value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw new TargetError(`${name} must be a whole number >= 0, got '${value}'.`)
  return n
}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value)

/** The target from environment variables (`VOICE_API_*`). */
export function targetFromEnv(raw: Record<string, string | undefined>): Partial<TargetConfig> {
  // An empty variable counts as unset.
  const env = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== ''))
  const out: Partial<TargetConfig> = {
    baseUrl: env.VOICE_API_BASE_URL,
    secretKey: env.VOICE_API_KEY,
    publishableKey: env.VOICE_API_PUBLISHABLE_KEY,
    revokedKey: env.VOICE_API_REVOKED_KEY,
    expiredKey: env.VOICE_API_EXPIRED_KEY,
    plan: plan(env.VOICE_API_PLAN),
    provision: env.VOICE_API_PROVISION as TargetConfig['provision'],
    mockAdminToken: env.VOICE_API_MOCK_ADMIN_TOKEN,
    mockControlUrl: env.VOICE_API_MOCK_CONTROL_URL,
    budget: integer('VOICE_API_BUDGET', env.VOICE_API_BUDGET),
    maxWaitSeconds: integer('VOICE_API_MAX_WAIT', env.VOICE_API_MAX_WAIT),
  }
  if (env.VOICE_API_DESTRUCTIVE !== undefined) out.destructive = truthy(env.VOICE_API_DESTRUCTIVE)
  if (env.VOICE_API_ORIGIN_KEY) out.originKey = parseOriginKey(env.VOICE_API_ORIGIN_KEY)
  if (env.VOICE_API_SCOPED_KEYS)
    out.scopedKeys = env.VOICE_API_SCOPED_KEYS.split(/\s+/).filter(Boolean).map(parseScopedKey)
  return out
}

/** The target from a JSON or YAML config file (the fields of `TargetConfig`; scoped keys as objects or strings). */
export function targetFromFile(path: string): Partial<TargetConfig> {
  let value: unknown
  try {
    value = parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new TargetError(`Cannot read the config file ${path}: ${(error as Error).message.split('\n')[0]}`)
  }
  if (!value || typeof value !== 'object')
    throw new TargetError(`The config file ${path} must hold an object.`)
  const config = { ...(value as Record<string, unknown>) } as Partial<TargetConfig> & {
    scopedKeys?: unknown[]
  }
  if (Array.isArray(config.scopedKeys))
    config.scopedKeys = config.scopedKeys.map((k) =>
      typeof k === 'string' ? parseScopedKey(k) : (k as ScopedKey),
    )
  if (typeof config.originKey === 'string') config.originKey = parseOriginKey(config.originKey)
  if (config.plan !== undefined) plan(config.plan)
  return config
}

/** Merges layers, later ones winning where they set a value (defaults < file < environment < flags). */
export function mergeTargets(...layers: Partial<TargetConfig>[]): Partial<TargetConfig> {
  const out: Partial<TargetConfig> = {}
  for (const layer of layers)
    for (const [key, value] of Object.entries(layer))
      if (value !== undefined) (out as Record<string, unknown>)[key] = value
  return out
}

/** Checks a merged target: the base URL is a URL, a secret key or provisioning is there. */
export function finishTarget(partial: Partial<TargetConfig>): TargetConfig {
  const baseUrl = partial.baseUrl ?? 'http://127.0.0.1:4010/v1'
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TargetError(`The base URL '${baseUrl}' is not a URL.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TargetError(`The base URL must be http:// or https://, got '${baseUrl}'.`)
  if (url.search !== '' || url.hash !== '')
    throw new TargetError(`The base URL must not carry a query or fragment, got '${baseUrl}'.`)

  if (partial.provision !== undefined && partial.provision !== 'none' && partial.provision !== 'mock')
    throw new TargetError(`--provision must be mock or none, got '${partial.provision}'.`)
  if (
    partial.concurrency !== undefined &&
    (!Number.isInteger(partial.concurrency) || partial.concurrency < 1 || partial.concurrency > 64)
  )
    throw new TargetError(
      `concurrency must be a whole number from 1 to 64, got '${String(partial.concurrency)}'.`,
    )
  if (partial.provision !== 'mock' && !partial.secretKey)
    throw new TargetError(
      'A secret key is required: set VOICE_API_KEY (or --secret-key), or use --provision mock against the mock.',
    )
  return { ...partial, baseUrl }
}
