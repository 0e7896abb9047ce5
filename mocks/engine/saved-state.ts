import type { ValidateFunction } from 'ajv'
import { createContractAjv } from '../../openapi/contract-ajv.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { SEQUENCE_KEY } from './scenarios/scenario-table.ts'
import type { StateSnapshot } from './state/change-set.ts'
import type { DemoIds } from './state/meta.ts'

/** A saved state the engine cannot start from: names the table, the record and the field at fault. */
export class SavedStateError extends Error {
  constructor(
    readonly table: string,
    readonly record: string | undefined,
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    const where = [
      `table '${table}'`,
      record === undefined ? '' : `record '${record}'`,
      field ? `field '${field}'` : '',
    ]
    super(`${where.filter(Boolean).join(', ')}: ${problem}`)
    this.name = 'SavedStateError'
  }
}

type Problem = [field: string, problem: string] | undefined
type RecordCheck = (value: unknown, key: string) => Problem

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The first field of `value` that is missing or not of the kind wanted. */
function fields(value: unknown, wanted: Record<string, (field: unknown) => boolean>, prefix = ''): Problem {
  if (!isObject(value)) return [prefix.replace(/\.$/, '') || '(record)', 'is not an object']
  for (const [name, ok] of Object.entries(wanted))
    if (!ok(value[name]))
      return [`${prefix}${name}`, value[name] === undefined ? 'is missing' : 'has the wrong type']
  return undefined
}

const text = (value: unknown) => typeof value === 'string' && value.length > 0
const nullableText = (value: unknown) => value === null || typeof value === 'string'
const whole = (value: unknown) => Number.isSafeInteger(value)
const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value)
const SHA256_HEX = /^[0-9a-f]{64}$/

const CHECKS: Record<string, RecordCheck> = {
  meta: (value, key) =>
    key === 'demo'
      ? fields(value, { account_id: text, secret_key_id: text, publishable_key_id: text, seed: whole })
      : undefined,
  clock: (value) => (finite(value) ? undefined : ['offset', 'is not a number of seconds']),
  accounts: (value, key) =>
    fields(value, {
      id: (id) => id === key,
      email: text,
      name: (name) => typeof name === 'string',
      plan: (plan) => plan === 'free' || plan === 'pro' || plan === 'enterprise',
      created_at: text,
      custom_limits: (limits) =>
        limits === null || (isObject(limits) && whole(limits.hourly) && whole(limits.burst)),
    }),
  keys: (value, key) => {
    const stored = fields(value, {
      hash: (hash) => typeof hash === 'string' && SHA256_HEX.test(hash),
      record: isObject,
    })
    if (stored?.[0] === 'hash' && stored[1] !== 'is missing')
      return ['hash', 'is not the SHA-256 of a key (64 hex digits)']
    if (stored) return stored
    return fields(
      (value as { record: unknown }).record,
      {
        id: (id) => id === key,
        account_id: text,
        type: (type) => type === 'secret' || type === 'publishable',
        status: (status) => status === 'active' || status === 'revoked',
        permissions: Array.isArray,
        restrictions: isObject,
        created_at: text,
        last_used_at: nullableText,
        revoked_at: nullableText,
      },
      'record.',
    )
  },
  idempotency: (value) =>
    fields(value, { fingerprint: text, result: isObject, expiresAt: finite, bytes: whole }),
  windows: (value) =>
    whole(value) && (value as number) > 0 ? undefined : ['count', 'is not a positive count'],
  journal: (value) => fields(value, { id: text, status: whole }),
  scenarios: (value, key) =>
    key === SEQUENCE_KEY
      ? whole(value) && (value as number) >= 0
        ? undefined
        : ['sequence', 'is not a count of scenarios']
      : fields(value, {
          id: (id) => id === key,
          operation: text,
          status: (status) => status === null || whole(status),
          delay: (delay) => delay === null || isObject(delay),
          network_error: (error) => error === null || error === 'reset' || error === 'timeout',
          times: (times) => times === null || whole(times),
          probability: (p) => finite(p) && (p as number) >= 0 && (p as number) <= 1,
          uses: whole,
          sequence: whole,
          draws: whole,
          created_at: text,
        }),
  schedule: (value, key) =>
    fields(value, { id: (id) => id === key, at: finite, seq: whole, kind: text, ref: text }),
  calls: (value) =>
    fields(value, {
      id: text,
      account_id: text,
      agent_id: text,
      outcome: text,
      ring_ms: finite,
      talk_ms: finite,
      conversation: Array.isArray,
      rate_per_minute: finite,
    }),
  webhook_secrets: (value) =>
    fields(value, {
      value: (secret) => typeof secret === 'string' && secret.startsWith('whsec_'),
      created_at: text,
    }),
  webhook_deliveries: (value, key) =>
    fields(value, {
      id: (id) => key.endsWith(`/${String(id)}`),
      account_id: (account) => key.startsWith(`${String(account)}/`),
      call_id: text,
      event_id: text,
      url: text,
      status: (status) => status === 'pending' || status === 'succeeded' || status === 'failed',
      attempts: Array.isArray,
      seq: whole,
      failures: whole,
      event: isObject,
    }),
}

/** Tables whose records are the contract's own objects, checked against its schemas. */
const CONTRACT_TABLES: Record<string, string> = {
  agents: 'Agent',
  call_logs: 'CallLog',
  team_members: 'TeamMember',
  integrations: 'Integration',
}

/** Tables whose records belong to an account (`<account id>/<id>`). */
const PER_ACCOUNT = new Set([
  'agents',
  'call_logs',
  'team_members',
  'integrations',
  'idempotency',
  'windows',
  'calls',
  'webhook_secrets',
  'webhook_deliveries',
])

/**
 * Checks a saved state before the engine starts from it: every table known, every record well formed (the
 * contract's objects against the contract's schemas), every reference resolved (a key's account, a record's
 * account, the demo account and its keys). Returns the demo ids; throws `SavedStateError` naming what is wrong.
 */
export function checkSavedState(saved: StateSnapshot, document: OpenApiDocument): DemoIds {
  if (saved.version !== 2 || !isObject(saved.tables))
    throw new SavedStateError('(state)', undefined, 'version', `is ${String(saved.version)}, not 2`)
  const known = new Set([...Object.keys(CHECKS), ...Object.keys(CONTRACT_TABLES)])
  const { compile } = createContractAjv(document, 'urn:voice-api-kit:saved-state')
  const validators = new Map<string, ValidateFunction>()
  const accounts = new Set((saved.tables.accounts ?? []).map(([id]) => id))

  for (const [table, records] of Object.entries(saved.tables)) {
    if (!known.has(table))
      throw new SavedStateError(table, undefined, undefined, 'is not a table of this mock')
    if (!Array.isArray(records))
      throw new SavedStateError(table, undefined, undefined, 'is not a list of records')
    for (const entry of records) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string')
        throw new SavedStateError(table, undefined, undefined, 'holds an entry that is not [key, record]')
      const [key, value] = entry as [string, unknown]
      if (PER_ACCOUNT.has(table) && !accounts.has(key.split('/')[0] ?? ''))
        throw new SavedStateError(table, key, undefined, 'belongs to an account the state does not hold')
      const schema = CONTRACT_TABLES[table]
      if (schema) {
        let validate = validators.get(table)
        if (!validate) {
          validate = compile({ $ref: `#/components/schemas/${schema}` })
          validators.set(table, validate)
        }
        if (!validate(value)) {
          const error = validate.errors?.[0]
          const field = `${error?.instancePath ?? ''}`.replace(/^\//, '').replace(/\//g, '.')
          throw new SavedStateError(
            table,
            key,
            field || '(record)',
            `${error?.message ?? 'is not valid'} (${schema} in openapi/v1.yaml)`,
          )
        }
        continue
      }
      const problem = CHECKS[table]?.(value, key)
      if (problem) throw new SavedStateError(table, key, problem[0], problem[1])
      if (table === 'keys') {
        const accountId = (value as { record: { account_id: string } }).record.account_id
        if (!accounts.has(accountId))
          throw new SavedStateError(
            table,
            key,
            'record.account_id',
            `names account '${accountId}', which the state does not hold`,
          )
      }
    }
  }

  const demo = new Map(saved.tables.meta ?? []).get('demo') as DemoIds | undefined
  if (!demo)
    throw new SavedStateError('meta', 'demo', undefined, 'is missing: the state names no demo account')
  if (!accounts.has(demo.account_id))
    throw new SavedStateError(
      'meta',
      'demo',
      'account_id',
      `names account '${demo.account_id}', which the state does not hold`,
    )
  const keys = new Set((saved.tables.keys ?? []).map(([id]) => id))
  for (const field of ['secret_key_id', 'publishable_key_id'] as const)
    if (!keys.has(demo[field]))
      throw new SavedStateError(
        'meta',
        'demo',
        field,
        `names key '${demo[field]}', which the state does not hold`,
      )
  return demo
}
