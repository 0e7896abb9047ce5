import fc from 'fast-check'
import { parameterBreakages } from '../contract/breakages.ts'
import type { Contract } from '../contract/contract.ts'
import type { ContractOperation, ContractParameter } from '../contract/operations.ts'
import { BODY_EDITS } from './body-edits.ts'
import { itemPathOf, listOperations, listPrefix, paginationNames, viewOperations } from './contract-shapes.ts'
import { CONTROL_VIEWS } from './control-views.ts'
import { IDEMPOTENCY_ELSEWHERE_FORM, REQUEST_FORM_COUNT } from './request-spelling.ts'
import { idPrefixes, resolveNode } from './schema-node.ts'
import { valueArbitrary, word } from './schema-values.ts'
import {
  type ApiStep,
  type BodyChoice,
  KEY_ROLES,
  type KeyRole,
  lacking,
  MANGLED_ROLES,
  MINT_ADDRESSES,
  only,
  type ParamChoice,
  type SetupSpec,
  type Step,
  type Watch,
  type WebhookSecretAction,
} from './step-types.ts'

const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/**
 * Clock moves: near the bounds of the windows (docs/decisions/006-rate-limits.md) and of the idempotency keys
 * (docs/decisions/008-lists-and-idempotency.md), never on them; now and then by a fraction of a second
 * (`FRACTIONS`), which the control plane takes (mock-control.yaml advanceClock).
 */
export const ADVANCES = [2, 7, 29, 31, 58, 62, 119, 125, 3590, 3610, 86_390, 86_410, 90_000] as const
/** Fractions of a second, one move in fourteen: the windows' and keys' bounds are what most moves are for. */
const FRACTIONS = [0.5, 1.5] as const

/**
 * The key of a request: the full secret key half of the time; then, half as often each, the keys that lack exactly one
 * of the scopes the operation needs (`x-required-permission`, where a 403 and a permission that implies another
 * meet) with the publishable key (it holds `agents:read` at most, so it reads agents and is refused everything
 * else: docs/decisions/004-permissions.md), and every other key the sequence holds alike; now and then the key
 * that holds the operation's one scope alone (the narrowest that may call it), and the keys written wrong or
 * holding another scope alone. Each group is drawn as a whole, so that a new role does not make the others rarer.
 */
function keyArbitrary(contract: Contract, operation?: ContractOperation): fc.Arbitrary<KeyRole> {
  const needs = operation?.permissions ?? []
  const near: KeyRole[] = [...needs.map(lacking), 'publishable']
  const narrowest: KeyRole[] = needs.length === 1 ? needs.map(only) : []
  const wrong: KeyRole[] = [
    ...MANGLED_ROLES,
    ...contract.scopes.map(only).filter((r) => !narrowest.includes(r)),
  ]
  const others = [
    ...KEY_ROLES.filter((r) => r !== 'secret' && !near.includes(r) && !wrong.includes(r)),
    ...contract.scopes.map(lacking).filter((r) => !near.includes(r)),
  ]
  const group = (weight: number, roles: KeyRole[]) =>
    roles.length > 0 ? [{ weight, arbitrary: fc.constantFrom(...roles) }] : []
  const rest = [
    ...group(4, near),
    ...group(1, narrowest),
    ...group(near.length > 0 ? 4 : 8, others),
    ...group(1, wrong),
  ]
  // Half of the requests with the secret key: as often as with all the others together.
  const secret = rest.reduce((sum, entry) => sum + entry.weight, 0)
  return fc.oneof({ weight: secret, arbitrary: fc.constant<KeyRole>('secret') }, ...rest)
}

function examplesOf(
  contract: Contract,
  operation: ContractOperation,
  parameter: ContractParameter,
): unknown[] {
  const item = contract.document.paths[operation.path] as Record<string, unknown> & { parameters?: unknown[] }
  const raw = [
    ...(item.parameters ?? []),
    ...((item[operation.method] as { parameters?: unknown[] })?.parameters ?? []),
  ]
  for (const entry of raw) {
    const resolved = resolveNode(contract.document, entry, '#').schema as {
      name?: string
      examples?: Record<string, { value?: unknown }>
    }
    if (resolved.name === parameter.name)
      return Object.values(resolved.examples ?? {})
        .map((e) => e.value)
        .filter((v) => v !== undefined)
  }
  return []
}

/** An index into a list counted from its newest item: the newest most often. */
const recent = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.nat({ max: 3 }) },
  { weight: 1, arbitrary: fc.nat() },
)

/** The choices of one parameter, from its schema alone (and the contract's examples). */
function paramArbitrary(
  contract: Contract,
  operation: ContractOperation,
  parameter: ContractParameter,
): fc.Arbitrary<ParamChoice> {
  const document = contract.document
  const schema = parameter.schema
  const optional = parameter.in !== 'path'
  // Each optional parameter is sent about once in three requests, fewer when the operation has many: a
  // request with every filter at once is refused for one of them and tells nothing of the others.
  const optionals = operation.parameters.filter((p) => p.in !== 'path').length
  const present = Math.min(1 / 2, 1.5 / Math.max(1, optionals))
  const absentWeight = (others: number) => Math.max(1, Math.round((others * (1 - present)) / present))
  const broken = parameterBreakages(document, schema)
  const brokenArbitrary = {
    weight: 1,
    arbitrary:
      broken.length > 0
        ? fc
            .constantFrom(...broken)
            .map((b): ParamChoice => ({ from: 'broken', value: b.value, what: b.what }))
        : fc.constant<ParamChoice>({ from: 'absent' }),
  }
  const withOptional = (...choices: fc.WeightedArbitrary<ParamChoice>[]) => {
    const others = choices.reduce((sum, c) => sum + c.weight, brokenArbitrary.weight)
    const absent = { weight: absentWeight(others), arbitrary: fc.constant<ParamChoice>({ from: 'absent' }) }
    return fc.oneof(...(optional ? [absent] : []), ...choices, brokenArbitrary)
  }
  const prefixes = idPrefixes(resolveNode(document, schema, '#').schema)
  if (prefixes) {
    const prefix = prefixes[0] === '*' ? (listPrefix(contract, operation) ?? 'agt') : (prefixes[0] as string)
    // A path names the newest objects most often (the one a step just made); a cursor or a filter any of them.
    const picks = parameter.in === 'path' ? recent : fc.nat()
    const object = (pool: 'live' | 'deleted' | 'other') =>
      picks.map((pick): ParamChoice => ({ from: 'object', pool, prefix, pick }))
    // A cursor that may name any object of its collection is now and then an object of another collection (an ID
    // a client kept in the wrong variable): not an object of this one.
    const elsewhere = [...new Set(listOperations(contract).map((op) => listPrefix(contract, op)))].filter(
      (other): other is string => other !== undefined && other !== '*' && other !== prefix,
    )
    const foreign =
      prefixes[0] === '*' && elsewhere.length > 0
        ? [
            {
              weight: 1,
              arbitrary: fc
                .tuple(fc.constantFrom(...elsewhere), fc.nat())
                .map(([other, pick]): ParamChoice => ({ from: 'object', pool: 'live', prefix: other, pick })),
            },
          ]
        : []
    return withOptional(
      { weight: 10, arbitrary: object('live') },
      { weight: 2, arbitrary: object('deleted') },
      { weight: 2, arbitrary: object('other') },
      { weight: 1, arbitrary: fc.constant<ParamChoice>({ from: 'unknown', prefix }) },
      ...foreign,
    )
  }
  if (schema.format === 'date-time')
    return withOptional({
      weight: 4,
      arbitrary: fc
        .record({
          base: fc.oneof(
            { weight: 2, arbitrary: fc.constantFrom<'now' | 'object'>('now', 'object') },
            { weight: 1, arbitrary: fc.constant<'calendar'>('calendar') },
          ),
          pick: fc.nat(),
          offset: fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) },
            { weight: 2, arbitrary: fc.constantFrom(-7 * 86_400, -86_400, -3600, -60, 60, 3600) },
          ),
        })
        .map((instant): ParamChoice => ({ from: 'instant', ...instant })),
    })
  const examples = examplesOf(contract, operation, parameter)
  const valid = valueArbitrary(document, schema)
  const seen = fc
    .tuple(fc.nat(), valid)
    .map(([pick, fallback]): ParamChoice => ({ from: 'seen', pick, fallback: String(fallback) }))
  const value = (examples.length > 0 ? fc.oneof(fc.constantFrom(...examples), valid) : valid).map(
    (v): ParamChoice => ({ from: 'value', value: v }),
  )
  // A header (an Idempotency-Key) and a path's catalogue value (an integration) are often the one sent before.
  if (parameter.in === 'header' || parameter.in === 'path')
    return withOptional({ weight: 3, arbitrary: value }, { weight: 3, arbitrary: seen })
  // An integer bound of a field (a minimum duration) often on a value an answer showed, or one either side of
  // it: where inclusive and exclusive bounds part.
  if (resolveNode(document, schema, '#').schema.type === 'integer') {
    const near = fc
      .tuple(fc.nat(), fc.constantFrom(-1, 0, 0, 1), valid)
      .map(([pick, offset, fallback]): ParamChoice => ({ from: 'number', pick, offset, fallback }))
    return withOptional({ weight: 3, arbitrary: value }, { weight: 2, arbitrary: near })
  }
  return withOptional({ weight: 5, arbitrary: value })
}

const RAW_BODIES: BodyChoice[] = [
  { form: 'raw', text: '{"name": ', contentType: 'application/json' },
  { form: 'raw', text: '[]', contentType: 'application/json' },
  { form: 'raw', text: 'null', contentType: 'application/json' },
  { form: 'raw', text: '{}', contentType: 'text/plain' },
  { form: 'raw', text: '{"name": ', contentType: 'text/plain' },
  // A JSON object with more after it: not one JSON value (a decoder that stops at the first object reads it).
  { form: 'raw', text: '{} {}', contentType: 'application/json' },
  { form: 'raw', text: '{"name": "explore"}]', contentType: 'application/json' },
  // One byte over the 1 MiB a body may hold (docs/decisions/005-order-of-checks.md: 413, after the key).
  { form: 'raw', text: `{"name": "${'x'.repeat(1_048_576)}"}`, contentType: 'application/json' },
]

/** How a JSON body is written (body-spelling.ts): mostly the plain way, else one of the equivalent ones. */
const spellingArbitrary = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 15 }) },
)

function bodyArbitrary(
  contract: Contract,
  operation: ContractOperation,
): fc.Arbitrary<BodyChoice> | undefined {
  const body = operation.requestBody
  if (!body) return undefined
  const valid = valueArbitrary(contract.document, body.schema)
  const partial = requiresNothing(contract, body.schema)
  const base =
    body.examples.length > 0
      ? fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(...body.examples) })
      : valid
  return fc.oneof(
    {
      weight: partial ? 8 : 12,
      arbitrary: fc
        .tuple(base, spellingArbitrary)
        .map(([value, spelling]): BodyChoice => ({ form: 'valid', value, spelling })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(base, fc.nat(), spellingArbitrary)
        .map(([value, pick, spelling]): BodyChoice => ({ form: 'broken', value, pick, spelling })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
    // A partial update of one field alone, each field as often (a dashboard's toggle, a form that sends what was
    // edited), where a handler that rewrites the fields it was not sent shows.
    ...(partial ? [{ weight: 8, arbitrary: oneFieldArbitrary(contract, body.schema) }] : []),
    // A field of the object set from what it was before: back to an earlier value, a map's key removed, a
    // removed key added again (a toggle switched back, a connection made again, a metadata entry restored).
    ...(partial ? [{ weight: 4, arbitrary: editArbitrary(contract, body.schema) }] : []),
  )
}

/** Whether a body schema requires no field: a partial update, whose body may carry one field alone. */
function requiresNothing(contract: Contract, schema: unknown): boolean {
  const resolved = resolveNode(contract.document, schema, '#').schema as { required?: unknown[] }
  return !(resolved.required?.length ?? 0)
}

/** How a field is set from the object's past (body-edits.ts): which edit, which field and value, a new word. */
const editChoice = fc.record({ edit: fc.constantFrom(...BODY_EDITS), pick: fc.nat(), word })

/** A body made from the named object's past (body-edits.ts), a one-field body when it has none. */
function editArbitrary(contract: Contract, schema: Record<string, unknown>): fc.Arbitrary<BodyChoice> {
  return fc.tuple(oneFieldArbitrary(contract, schema), editChoice).map(
    ([fallback, edit]): BodyChoice => ({
      form: 'edit',
      ...edit,
      value: fallback.form === 'valid' ? fallback.value : {},
      spelling: fallback.form === 'valid' ? fallback.spelling : 0,
    }),
  )
}

/** A body of one field of an object schema alone, the field drawn first, then a valid value of it. */
function oneFieldArbitrary(contract: Contract, schema: Record<string, unknown>): fc.Arbitrary<BodyChoice> {
  const resolved = resolveNode(contract.document, schema, '#').schema as {
    properties?: Record<string, unknown>
  }
  const properties = Object.entries(resolved.properties ?? {})
  if (properties.length === 0) return fc.constant({ form: 'valid', value: {}, spelling: 0 })
  return fc
    .constantFrom(...properties)
    .chain(([name, property]) =>
      fc
        .tuple(valueArbitrary(contract.document, property), spellingArbitrary)
        .map(([value, spelling]): BodyChoice => ({ form: 'valid', value: { [name]: value }, spelling })),
    )
}

/** The methods a path does not document (answered 405), in the contract's spelling. */
function undocumented(contract: Contract, operation: ContractOperation): string[] {
  const item = contract.document.paths[operation.path] as Record<string, unknown>
  return METHODS.filter((m) => item[m] === undefined).map((m) => m.toUpperCase())
}

/** The arbitrary of requests to one operation: its parameters, body, key, method and origin. */
function apiStepArbitrary(contract: Contract, operation: ContractOperation): fc.Arbitrary<ApiStep> {
  const params = Object.fromEntries(
    operation.parameters
      .filter((p) => p.in !== 'cookie')
      .map((p) => [p.name, paramArbitrary(contract, operation, p)]),
  )
  const others = undocumented(contract, operation)
  const methods: fc.WeightedArbitrary<string | undefined>[] = [
    { weight: 12, arbitrary: fc.constant(undefined) },
  ]
  if (operation.method === 'get') methods.push({ weight: 1, arbitrary: fc.constant('HEAD') })
  // A CORS preflight of the path (the contract's conventions: the standalone mock answers them).
  methods.push({ weight: 1, arbitrary: fc.constant('OPTIONS') })
  if (others.length > 0) methods.push({ weight: 1, arbitrary: fc.constantFrom(...others) })
  const body = bodyArbitrary(contract, operation)
  return fc.record({
    kind: fc.constant('api' as const),
    operationId: fc.constant(operation.operationId),
    method: fc.oneof(...methods),
    key: keyArbitrary(contract, operation),
    params: fc.record(params),
    body: body ?? fc.constant(undefined),
    origin: fc.oneof(
      { weight: 6, arbitrary: fc.constant('none' as const) },
      { weight: 1, arbitrary: fc.constantFrom('allowed' as const, 'other' as const) },
    ),
    readBack:
      operation.method === 'get'
        ? fc.constant(false as const)
        : fc.oneof(
            { weight: 1, arbitrary: fc.constant(false as const) },
            {
              weight: 3,
              arbitrary: fc.record({
                pageSize: fc.oneof(
                  { weight: 1, arbitrary: fc.constant(0) },
                  { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) },
                ),
                backwards: fc.boolean(),
              }),
            },
          ),
    repeat: operation.responses.has('201')
      ? fc.oneof(
          { weight: 2, arbitrary: fc.constant(1) },
          { weight: 1, arbitrary: fc.integer({ min: 2, max: 5 }) },
        )
      : fc.constant(1),
    // One request in eight written in another form: most of them a client's everyday variant, some refused.
    form: fc.oneof(
      { weight: 7, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: REQUEST_FORM_COUNT }) },
    ),
    stray: fc.oneof(
      { weight: 30, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('x', '/explore') },
    ),
  })
}

const PLANS = fc.constantFrom<SetupSpec['plan']>('pro', 'free', 'enterprise')

/** Custom quotas small enough for a sequence to reach. */
const CUSTOM_LIMITS = fc.record({
  hourly: fc.integer({ min: 12, max: 60 }),
  burst: fc.integer({ min: 4, max: 12 }),
})

/** The plan's own quotas most often, else custom ones small enough for a sequence to reach. */
const LIMITS = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: CUSTOM_LIMITS })

/**
 * A plan change's quotas: as `LIMITS`, left out (the plan alone changes; custom quotas stay), or the account's own
 * set explicitly (a plan's defaults pinned, so that a later change of plan keeps them).
 */
const PLAN_LIMITS = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: CUSTOM_LIMITS },
  { weight: 1, arbitrary: fc.constant('pinned' as const) },
)

/** A call the setup places. */
const SETUP_CALL = fc.record({
  outcome: fc.constantFrom('completed', 'no_answer', 'busy', 'failed', 'canceled'),
  ringSeconds: fc.integer({ min: 0, max: 10 }),
  durationSeconds: fc.integer({ min: 0, max: 300 }),
  // Calls of both directions and channels from the start: a list filtered by one meets the others.
  channel: fc.constantFrom<'phone' | 'web'>('phone', 'phone', 'web'),
  direction: fc.constantFrom<'inbound' | 'outbound'>('inbound', 'outbound'),
})

/** How often a request goes to an operation, by method: writes make the state that reads then show. */
const METHOD_WEIGHT: Record<string, number> = { post: 5, patch: 4, delete: 3, get: 3 }

/**
 * Every kind of step, generated from the contract's operations (each of them, writes more often than reads)
 * and its clock and keys.
 */
export function stepArbitrary(contract: Contract): fc.Arbitrary<Step> {
  const watched = [
    ...listOperations(contract).filter((op) => listPrefix(contract, op) === 'call'),
    ...viewOperations(contract),
  ]
  const watch = fc.oneof(
    queryArbitrary(contract, watched, () => true),
    combinedFilters(contract, watched, () => true),
  )
  // A list read page by page through its filters: what the filter keeps, paged (the pagination's own parameters
  // are the step's).
  const pagination = new Set(Object.values(paginationNames(contract) ?? {}))
  const filters = queryArbitrary(contract, listOperations(contract), (p) => !pagination.has(p.name))
  const combined = combinedFilters(contract, listOperations(contract), (p) => !pagination.has(p.name))
  const requests = new Map(contract.operations.map((op) => [op.operationId, apiStepArbitrary(contract, op)]))
  const mint = fc
    .record({
      type: fc.constantFrom<'secret' | 'publishable'>('secret', 'secret', 'publishable'),
      permissions: fc.option(fc.subarray([...contract.scopes, 'read', 'write'], { maxLength: 3 }), {
        nil: undefined,
      }),
      ips: fc.option(
        fc.oneof(
          { weight: 4, arbitrary: fc.subarray([...MINT_ADDRESSES], { minLength: 1, maxLength: 3 }) },
          { weight: 1, arbitrary: fc.constant<string[]>([]) },
        ),
        { nil: undefined },
      ),
      // Seconds to its expiry: now (refused: it must be in the future), the next seconds, a minute, an hour.
      expiresIn: fc.option(fc.constantFrom(0, 1, 2, 61, 3600), { nil: undefined, freq: 3 }),
      atOffset: fc.boolean(),
      fraction: fc.constantFrom(0, 0, 0.25, 0.5, 0.75),
      uses: fc.array(requestsOf(requests, contract.operations), { minLength: 1, maxLength: 3 }),
    })
    .map((step): Step => ({ kind: 'mint', ...step }))
  return fc.oneof(
    { weight: 16, arbitrary: requestsOf(requests, contract.operations) },
    { weight: 4, arbitrary: burstArbitrary(contract, requests) },
    ...editsOf(contract, requests),
    ...recreatesOf(contract, requests),
    ...keyedRowsOf(contract, requests),
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          { weight: 13, arbitrary: fc.constantFrom(...ADVANCES) },
          { weight: 1, arbitrary: fc.constantFrom(...FRACTIONS) },
        )
        .map((seconds): Step => ({ kind: 'advance', seconds })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          pick: fc.nat(),
          key: fc.oneof(
            { weight: 4, arbitrary: fc.constant('same' as const) },
            { weight: 1, arbitrary: fc.constantFrom<KeyRole>('other-secret', 'spare', 'read') },
            { weight: 1, arbitrary: keyArbitrary(contract) },
          ),
          spelling: spellingArbitrary,
          changed: fc.oneof(
            { weight: 3, arbitrary: fc.constant(false) },
            { weight: 1, arbitrary: fc.constant(true) },
          ),
        })
        .map((again): Step => ({ kind: 'again', ...again })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({
          agent: fc.nat(),
          outcome: fc.constantFrom('completed', 'no_answer', 'busy', 'failed', 'canceled'),
          channel: fc.constantFrom<'phone' | 'web'>('phone', 'web'),
          direction: fc.constantFrom<'inbound' | 'outbound'>('inbound', 'outbound'),
          ringSeconds: fc.integer({ min: 0, max: 10 }),
          durationSeconds: fc.integer({ min: 0, max: 300 }),
          capEdge: fc.oneof(
            { weight: 3, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1) },
          ),
          watch,
          leave: fc.oneof(
            { weight: 2, arbitrary: fc.constant(false) },
            { weight: 1, arbitrary: fc.constant(true) },
          ),
        })
        // A call at its agent's cap connects, and is watched to its end.
        .map(
          (call): Step =>
            call.capEdge === undefined
              ? { kind: 'call', ...call }
              : { kind: 'call', ...call, outcome: 'completed', leave: false },
        ),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({
          list: fc.nat(),
          pageSize: fc.integer({ min: 1, max: 3 }),
          backwards: fc.boolean(),
          // Mostly the secret key; the publishable key and the read group's now and then (what a page leaves out
          // for them holds on every page, not only the first).
          key: fc.oneof(
            { weight: 4, arbitrary: fc.constant<KeyRole>('secret') },
            { weight: 1, arbitrary: fc.constantFrom<KeyRole>('publishable', 'read') },
          ),
          // Now and then two or three filters at once ("Filters combine with AND": one must not drop another).
          filters: fc.oneof(
            { weight: 3, arbitrary: fc.constant(undefined) },
            { weight: 1, arbitrary: filters },
            { weight: 1, arbitrary: combined },
          ),
        })
        .map((page): Step => ({ kind: 'page', ...page })),
    },
    // The dashboard's events: a key revoked, the newest invited member joining, the webhook signing secret
    // created, rotated, read or revoked (one draw for all; twice the weight since the secret's joined, so that
    // keys are revoked and members join about as often as before).
    {
      weight: 2,
      arbitrary: fc
        .constantFrom<KeyRole | 'join' | 'rejoin' | `secret:${WebhookSecretAction}`>(
          'spare',
          'publishable',
          'other-secret',
          'join',
          'join',
          'rejoin',
          'secret:create',
          'secret:create',
          'secret:show',
          'secret:revoke',
        )
        .map((event): Step => {
          if (event === 'join') return { kind: 'join', member: 0 }
          if (event === 'rejoin') return { kind: 'join', member: 0, again: true }
          if (event.startsWith('secret:'))
            return { kind: 'secret', action: event.slice('secret:'.length) as WebhookSecretAction }
          return { kind: 'revoke', key: event as KeyRole }
        }),
    },
    // A key made on the dashboard with the permissions and restrictions a user picks, then used.
    { weight: 1, arbitrary: mint },
    // A scenario of the dashboard on one operation, met by the next requests to it.
    { weight: 1, arbitrary: scenarioArbitrary(contract, requests) },
    // The dashboard shown: the account's keys (last used, revoked, rotation due) or its plan and quotas.
    { weight: 2, arbitrary: fc.constantFrom(...CONTROL_VIEWS).map((view): Step => ({ kind: 'look', view })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ plan: PLANS, limits: PLAN_LIMITS })
        .map((change): Step => ({ kind: 'plan', ...change })),
    },
  )
}

/**
 * A scenario on one operation: an error status the operation documents (mock-control.yaml createScenario), for one
 * to three requests, met by two to four requests to the operation.
 */
function scenarioArbitrary(
  contract: Contract,
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
): fc.Arbitrary<Step> {
  return fc.constantFrom(...contract.operations).chain((op) => {
    // Not 401 nor 429: a scenario meets a request after authentication and the rate limit, whose own answers
    // those are (a 401 that was counted would carry rate-limit fields a real 401 has not).
    const documented = [...op.responses.keys()]
      .map(Number)
      .filter((status) => status >= 400 && status <= 599 && status !== 401 && status !== 429)
    return fc
      .record({
        // Documented ones only: a gateway's 500 or 503 would be an answer the contract does not give.
        status: fc.constantFrom(...(documented.length > 0 ? documented : [404])),
        // Now and then for as long as it stands (it is removed after the step's requests).
        times: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 4 }),
        uses: fc.array(requests.get(op.operationId) as fc.Arbitrary<ApiStep>, { minLength: 2, maxLength: 4 }),
        everyone: fc.oneof(
          { weight: 2, arbitrary: fc.constant(false) },
          { weight: 1, arbitrary: fc.constant(true) },
        ),
      })
      .map((scenario): Step => ({ kind: 'scenario', operation: op.operationId, ...scenario }))
  })
}

/** An arbitrary for each of `operations`, made by `of` from its query parameters that `keep` keeps. */
function perOperation(
  operations: ContractOperation[],
  keep: (parameter: ContractParameter) => boolean,
  of: (op: ContractOperation, kept: ContractParameter[]) => fc.Arbitrary<Record<string, ParamChoice>>,
): fc.Arbitrary<Watch> {
  return fc.record(
    Object.fromEntries(
      operations.map((op) => [
        op.operationId,
        of(
          op,
          op.parameters.filter((p) => p.in === 'query' && keep(p)),
        ),
      ]),
    ),
  )
}

/** Query parameters of each of `operations` (those `keep` keeps), by operation, each drawn like a request's. */
function queryArbitrary(
  contract: Contract,
  operations: ContractOperation[],
  keep: (parameter: ContractParameter) => boolean,
): fc.Arbitrary<Watch> {
  return perOperation(operations, keep, (op, kept) =>
    fc.record(Object.fromEntries(kept.map((p) => [p.name, paramArbitrary(contract, op, p)]))),
  )
}

/**
 * Two or three of the query parameters of each of `operations` (those `keep` keeps) sent at once, each with a value
 * drawn like a request's (one that breaks the parameter's schema is left out where they are read).
 */
function combinedFilters(
  contract: Contract,
  operations: ContractOperation[],
  keep: (parameter: ContractParameter) => boolean,
): fc.Arbitrary<Watch> {
  return perOperation(operations, keep, (op, kept) =>
    fc
      .shuffledSubarray(kept, { minLength: Math.min(2, kept.length), maxLength: Math.min(3, kept.length) })
      .chain((chosen) =>
        fc.record(
          Object.fromEntries(
            chosen.map((p) => [
              p.name,
              paramArbitrary(contract, op, p).filter((choice) => choice.from !== 'absent'),
            ]),
          ),
        ),
      ),
  )
}

/** A drawn request sent as a plain write of the account: its own method and path, once, with the secret key. */
const secretWrite = (request: ApiStep): ApiStep => ({
  ...request,
  key: 'secret',
  method: undefined,
  stray: undefined,
  origin: 'none',
  repeat: 1,
})

/**
 * An object changed several times in a row (a user editing a form): an update of one field or more with the
 * secret key, then two or three bodies made from the object's past (body-edits.ts). None when the contract has
 * no partial update.
 */
function editsOf(
  contract: Contract,
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
): fc.WeightedArbitrary<Step>[] {
  const updates = contract.operations.filter(
    (op) =>
      op.requestBody !== undefined &&
      op.path.includes('{') &&
      op.method !== 'post' &&
      requiresNothing(contract, op.requestBody.schema),
  )
  if (updates.length === 0) return []
  const ofEach = updates.map((op) =>
    fc
      .tuple(
        requests.get(op.operationId) as fc.Arbitrary<ApiStep>,
        fc.oneof(
          oneFieldArbitrary(contract, op.requestBody?.schema as Record<string, unknown>),
          valueArbitrary(contract.document, op.requestBody?.schema).map(
            (value): BodyChoice => ({ form: 'valid', value, spelling: 0 }),
          ),
        ),
        fc.array(editChoice, { minLength: 2, maxLength: 3 }),
        // Now and then every change with one Idempotency-Key, which an update does not take.
        fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      )
      .map(
        ([request, body, edits, keyed]): Step => ({
          kind: 'edits',
          step: {
            ...secretWrite(request),
            body,
            form: keyed ? IDEMPOTENCY_ELSEWHERE_FORM : request.form,
          },
          edits,
        }),
      ),
  )
  return [{ weight: 3, arbitrary: fc.oneof(...ofEach) }]
}

/**
 * A create with a fresh Idempotency-Key, the secret key and a valid body, then sent again with the same body and
 * with another. None when nothing that creates takes an Idempotency-Key.
 */
function keyedRowsOf(
  contract: Contract,
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
): fc.WeightedArbitrary<Step>[] {
  const keyed = contract.operations.filter(
    (op) => creates(op) && op.requestBody !== undefined && idempotencyParameter(op) !== undefined,
  )
  if (keyed.length === 0) return []
  const ofEach = keyed.map((op) =>
    fc
      .tuple(
        requests.get(op.operationId) as fc.Arbitrary<ApiStep>,
        valueArbitrary(contract.document, op.requestBody?.schema),
        fc.nat(),
      )
      .map(
        ([request, value, n]): Step => ({
          kind: 'keyed',
          create: {
            ...secretWrite(request),
            body: { form: 'valid', value, spelling: 0 },
            params: {
              ...request.params,
              [idempotencyParameter(op) as string]: { from: 'value', value: `explore-row-${n}` },
            },
          },
        }),
      ),
  )
  return [{ weight: 1, arbitrary: fc.oneof(...ofEach) }]
}

/**
 * An object made, removed and made again with the same valid body, with the secret key and no Idempotency-Key
 * (a new request each time); a team member may join before the removal. None when nothing that is created can be
 * deleted.
 */
function recreatesOf(
  contract: Contract,
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
): fc.WeightedArbitrary<Step>[] {
  const creating = contract.operations.filter(
    (op) =>
      creates(op) && op.requestBody !== undefined && itemPathOf(contract, op.path, 'delete') !== undefined,
  )
  if (creating.length === 0) return []
  const ofEach = creating.map((op) => {
    const idempotency = idempotencyParameter(op)
    return fc
      .tuple(
        requests.get(op.operationId) as fc.Arbitrary<ApiStep>,
        valueArbitrary(contract.document, op.requestBody?.schema),
        fc.boolean(),
      )
      .map(
        ([request, value, join]): Step => ({
          kind: 'recreate',
          create: {
            ...secretWrite(request),
            params: idempotency ? { ...request.params, [idempotency]: { from: 'absent' } } : request.params,
            body: { form: 'valid', value, spelling: 0 },
          },
          join,
        }),
      )
  })
  return [{ weight: 2, arbitrary: fc.oneof(...ofEach) }]
}

/** The requests of `operations`, each as often as its method's weight (`requests`: each operation's, made once). */
function requestsOf(
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
  operations: ContractOperation[],
): fc.Arbitrary<ApiStep> {
  return fc.oneof(
    ...operations.map((op) => ({
      weight: METHOD_WEIGHT[op.method] ?? 2,
      arbitrary: requests.get(op.operationId) as fc.Arbitrary<ApiStep>,
    })),
  )
}

/** Whether an operation creates an object (answers 201). */
const creates = (operation: ContractOperation) => operation.responses.has('201')

/** The name of an operation's Idempotency-Key parameter, if it takes one. */
const idempotencyParameter = (operation: ContractOperation) =>
  operation.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')?.name

/**
 * Requests sent at once, each carried out whole, so that every answer is one that some serial order of them gives
 * (docs/decisions/014-state.md: "one `Idempotency-Key` creates one object"; nothing acknowledged is lost). Their
 * objects and keys are drawn like any request's, so that they meet on the newest object most often: the same request two or three
 * times (a client retrying while the first try runs, two tabs submitting one form), a creating one with one
 * Idempotency-Key; two or three requests of one resource (a change and a delete of one object, a write and a
 * read of its list); two or three requests of any operations (an account's views beside a delete, reads with
 * different keys and filters at once). At most one of them creates (objects created in one second are ordered
 * by their IDs, which each side draws for itself).
 */
function burstArbitrary(
  contract: Contract,
  requests: ReadonlyMap<string, fc.Arbitrary<ApiStep>>,
): fc.Arbitrary<Step> {
  const weighted = (operations: ContractOperation[]) => requestsOf(requests, operations)
  const plain = (step: ApiStep): ApiStep => ({ ...step, readBack: false, repeat: 1 })
  const together = (steps: ApiStep[]): Step => ({ kind: 'burst', steps: steps.map(plain) })
  const twinnable = contract.operations.filter((op) => !creates(op) || idempotencyParameter(op))
  // Half of them each with a key of its own (two accounts, or two keys of one, reading at once).
  const keys = fc.oneof(
    fc.constant(undefined),
    fc.array(keyArbitrary(contract), { minLength: 3, maxLength: 3 }),
  )
  const twins = fc
    .tuple(weighted(twinnable), fc.integer({ min: 2, max: 3 }), fc.nat({ max: 999 }), keys)
    .map(([step, times, n, own]) => {
      const operation = contract.operation(step.operationId)
      const name = idempotencyParameter(operation)
      const params =
        creates(operation) && name && (step.params[name]?.from ?? 'absent') === 'absent'
          ? { ...step.params, [name]: { from: 'value', value: `at-once-${n}` } satisfies ParamChoice }
          : step.params
      return together(
        Array.from({ length: times }, (_, i) => ({ ...step, params, key: own?.[i] ?? step.key })),
      )
    })
  const mixed = (operations: ContractOperation[]) => {
    const others = operations.filter((op) => !creates(op))
    return fc
      .tuple(weighted(operations), fc.array(weighted(others), { minLength: 1, maxLength: 2 }))
      .map(([first, rest]) => together([first, ...rest]))
  }
  // Writes of one object at once (a change and a delete, two changes of other fields), the object named alike by
  // all of them, mostly with the secret key and a valid body: where lost updates and resurrected deletes live.
  const byItemPath = new Map<string, ContractOperation[]>()
  for (const operation of contract.operations)
    if (operation.path.includes('{'))
      byItemPath.set(operation.path, [...(byItemPath.get(operation.path) ?? []), operation])
  const contended = [...byItemPath.values()].filter((ops) => ops.some((op) => op.method !== 'get'))
  const contend = (operations: ContractOperation[]) =>
    fc.array(weighted(operations), { minLength: 2, maxLength: 3 }).map((steps) => {
      const first = steps[0] as ApiStep
      const pathNames = (operations[0] as ContractOperation).parameters
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
      return together(
        steps.map((step, i) => ({
          ...step,
          method: undefined,
          stray: undefined,
          origin: 'none',
          key: i === 0 || step.key === 'secret' ? step.key : 'secret',
          params: {
            ...step.params,
            ...Object.fromEntries(pathNames.map((n) => [n, first.params[n] ?? { from: 'absent' }])),
          },
          body:
            step.body?.form === 'broken' ? { form: 'valid', value: step.body.value, spelling: 0 } : step.body,
        })),
      )
    })
  const resources = new Map<string, ContractOperation[]>()
  for (const operation of contract.operations) {
    const resource = operation.path.split('/')[1] ?? ''
    resources.set(resource, [...(resources.get(resource) ?? []), operation])
  }
  const ofOneResource = [...resources.values()].filter((ops) => ops.some((op) => !creates(op)))
  // Each group's arbitrary made once; a group drawn first, then a burst of it.
  const contending = contended.map(contend)
  const ofOneResourceEach = ofOneResource.map(mixed)
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...contending).chain((burst) => burst) },
    { weight: 2, arbitrary: twins },
    { weight: 3, arbitrary: fc.constantFrom(...ofOneResourceEach).chain((burst) => burst) },
    { weight: 2, arbitrary: mixed(contract.operations) },
  )
}

/**
 * How each sequence's accounts are set up: a few objects of each kind, or now and then one more than a page of the
 * default size holds (`fullPage`), so that a list read without a `limit` is cut where the contract says.
 */
export function setupArbitrary(creating: number, fullPage = 0): fc.Arbitrary<SetupSpec> {
  const count = fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 0, max: 3 }) },
    { weight: fullPage > 0 ? 1 : 0, arbitrary: fc.constant(fullPage) },
  )
  return fc.record({
    plan: PLANS,
    limits: LIMITS,
    // Within a sequence, or long after it: past 2038, where a signed 32-bit count of seconds ends.
    expiresIn: fc.constantFrom(45, 300, 4000, 15 * 365 * 86_400),
    edge: fc.nat(),
    objects: fc.array(count, { minLength: creating, maxLength: creating }),
    // A few calls, or now and then one more than the dashboard's list of calls shows by default (mock-control.yaml
    // listCalls: `limit` default 10).
    calls: fc.oneof(
      { weight: 9, arbitrary: fc.array(SETUP_CALL, { maxLength: 3 }) },
      { weight: 1, arbitrary: fc.array(SETUP_CALL, { minLength: 11, maxLength: 11 }) },
    ),
  })
}
