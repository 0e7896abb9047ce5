import fc from 'fast-check'
import type { EngineRequest } from '../../../mocks/engine/types.ts'
import { mockControlDocument } from '../../../openapi/generated/mock-control.document.ts'
import { v1Document } from '../../../openapi/generated/v1.document.ts'
import type { Fixtures } from './fixtures.ts'
import { mutatedArbitrary, requestBodySchemas, schemaArbitrary } from './schema-arbitrary.ts'

/** A request as the fuzzers build it, before it becomes an engine request or raw bytes. */
export interface FuzzRequest {
  method: string
  /** Path without the query, as sent (may be malformed). */
  path: string
  /** Query string without `?` ('' for none). */
  query: string
  headers: Record<string, string>
  body: string | null
  clientIp?: string
}

const MiB = 1024 * 1024

/** Characters Node's HTTP parser lets through in a header value (visible ASCII, space, tab, obs-text). */
const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
  )
  .map((code) => String.fromCharCode(code))
export const headerValue = (maxLength = 40) => fc.string({ unit: headerChar, maxLength })

const v1Bodies = requestBodySchemas(v1Document)
const controlBodies = requestBodySchemas(mockControlDocument)

/** Every path template of both contracts, with its prefix, and the request body schema by method. */
const TEMPLATE_LIST: { path: string; bodies: Map<string, unknown>; document: unknown }[] = [
  ...Object.keys(v1Document.paths).map((path) => ({
    path: `/v1${path}`,
    document: v1Document,
    bodies: new Map(
      [...v1Bodies].filter(([k]) => k.endsWith(` ${path}`)).map(([k, s]) => [k.split(' ')[0] ?? '', s]),
    ),
  })),
  ...Object.keys(mockControlDocument.paths)
    .filter((path) => path !== '/reset')
    .map((path) => ({
      path: `/_mock${path}`,
      document: mockControlDocument,
      bodies: new Map(
        [...controlBodies]
          .filter(([k]) => k.endsWith(` ${path}`))
          .map(([k, s]) => [k.split(' ')[0] ?? '', s]),
      ),
    })),
]

const TEMPLATES = TEMPLATE_LIST.map((t) => ({
  ...t,
  /** The documented methods of the route. */
  methods: Object.keys(
    (t.document as { paths: Record<string, object> }).paths[t.path.replace(/^\/(v1|_mock)/, '')] ?? {},
  )
    .filter((m) => m !== 'parameters')
    .map((m) => m.toUpperCase()),
  pattern: new RegExp(
    `^${t.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
  ),
}))

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'] as const
export const methodArbitrary = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...METHODS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('get', 'Post', 'pAtCh', 'PROPFIND', 'SEARCH', 'M-SEARCH', 'PURGE'),
  },
)

const weirdSegment = fc.oneof(
  fc.constantFrom(
    '',
    '.',
    '..',
    '%',
    '%zz',
    '%00',
    '%2F',
    '%2e%2e',
    '%E0%A4',
    '%C0%AF',
    '%ff%fe',
    '~',
    '*',
    ';x=1',
    'agt_',
    'usr_x',
    'call_0',
    'mem_0',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'twilio',
    'Twilio',
    '\u00e9t\u00e9',
    '\u{1F600}',
    'a'.repeat(3000),
  ),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/),
)

const fillCache = new WeakMap<Fixtures, Map<string, fc.Arbitrary<string>>>()

/** A path template with its `{params}` filled by known ids, odd segments or key values (built once). */
function fill(template: string, fixtures: Fixtures): fc.Arbitrary<string> {
  let byTemplate = fillCache.get(fixtures)
  if (!byTemplate) {
    byTemplate = new Map()
    fillCache.set(fixtures, byTemplate)
  }
  let cached = byTemplate.get(template)
  if (!cached) {
    cached = buildFill(template, fixtures)
    byTemplate.set(template, cached)
  }
  return cached
}

function buildFill(template: string, fixtures: Fixtures): fc.Arbitrary<string> {
  const holes = template.match(/\{[^}]+\}/g) ?? []
  const segment = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fixtures.ids) },
    { weight: 4, arbitrary: weirdSegment },
    { weight: 1, arbitrary: fc.constantFrom(...fixtures.secrets) },
  )
  return fc.array(segment, { minLength: holes.length, maxLength: holes.length }).map((values) => {
    let i = 0
    return template.replace(/\{[^}]+\}/g, () => values[i++] ?? '')
  })
}

const PARAM_NAMES = [
  'limit',
  'starting_after',
  'ending_before',
  'agent_id',
  'status',
  'direction',
  'started_after',
  'started_before',
  'min_duration_seconds',
  'max_duration_seconds',
  'start',
  'end',
  'granularity',
  'timezone',
  'group_by',
  'account_id',
  'key_id',
  'api_key',
  'access_token',
  'expand',
]

const paramValue = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '20',
    '100',
    '101',
    '-1',
    '1.5',
    '1e3',
    'NaN',
    'Infinity',
    '99999999999999999999',
    '',
    'true',
    'completed',
    'inbound',
    'hour',
    'day',
    'week',
    'month',
    'total',
    'agent_id',
    'status',
    'UTC',
    'Europe/Paris',
    'Not/AZone',
    '2026-01-01T00:00:00Z',
    '2000-01-01T00:00:00Z',
    '2026-13-45T99:99:99Z',
    '0000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    '%',
    '%zz',
    '2xx',
    '5xx',
  ),
  fc.string({ maxLength: 20 }),
  fc.integer().map(String),
)

const queryArbitrary = (ids: readonly string[], secrets: readonly string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant('') },
    {
      weight: 6,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom(...PARAM_NAMES) },
              { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
            ),
            fc.oneof(
              { weight: 8, arbitrary: paramValue },
              { weight: 2, arbitrary: fc.constantFrom(...ids) },
              { weight: 1, arbitrary: fc.constantFrom(...secrets) },
            ),
            fc.boolean(),
          ),
          { minLength: 1, maxLength: 4 },
        )
        .map((pairs) =>
          pairs
            .map(([name, value, raw]) => (raw ? `${name}=${value}` : `${encode(name)}=${encode(value)}`))
            .join('&'),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('&&', '=', '%', 'a=%zz', 'limit', 'limit=1&limit=2', '?', '#frag'),
    },
  )

function encode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8'))
    out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).padStart(2, '0')}`
  return out
}

function authorizationArbitrary(fixtures: Fixtures): fc.Arbitrary<string | undefined> {
  const { keys, secrets } = fixtures
  const any = fc.constantFrom(...secrets)
  return fc.oneof(
    { weight: 14, arbitrary: fc.constant(`Bearer ${keys.full}`) },
    { weight: 6, arbitrary: any.map((k) => `Bearer ${k}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 4,
      arbitrary: fc.oneof(
        any.map((k) => `bearer   ${k}  `),
        any.map((k) => `BEARER ${k}`),
        any.map((k) => `Bearer ${k}x`),
        any.map((k) => `Bearer ${k.slice(0, -1)}`),
        any.map((k) => `Bearer ${k.toUpperCase()}`),
        any.map((k) => `Basic ${Buffer.from(`${k}:`).toString('base64')}`),
        any.map((k) => `Bearer ${k}, Bearer ${keys.full}`),
        any.map((k) => k),
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          'Token abc',
          'Bearer sk-svc-',
          `Bearer pk-svc-${'A'.repeat(40)}`,
        ),
        headerValue(60).map((s) => `Bearer ${s}`),
        headerValue(60),
      ),
    },
  )
}

const contentTypeArbitrary = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/merge-patch+json',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json, text/plain',
      'application/json; charset=utf-16',
      '',
      ';',
    ),
  },
  { weight: 1, arbitrary: headerValue(30) },
)

const deepJson = fc.oneof(
  fc.integer({ min: 50, max: 200_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 50, max: 100_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc
    .integer({ min: 50, max: 100_000 })
    .map((n) => `{"name":"deep","metadata":${'{"a":'.repeat(n)}"x"${'}'.repeat(n)}}`),
  fc
    .integer({ min: 50, max: 100_000 })
    .map((n) => `{"name":"deep","config":${'['.repeat(n)}${']'.repeat(n)}}`),
)

const hugeJson = fc
  .constantFrom(MiB - 64, MiB - 12, MiB + 1, 2 * MiB)
  .map((size) => `{"name":"${'x'.repeat(Math.max(0, size - 11))}"}`)

const oddJson = fc.constantFrom(
  '{',
  '{"name":}',
  'nul',
  'NaN',
  '1e999999',
  '-0',
  '"\\ud800"',
  '{"name":"\\ud800\\udfff\\u0000"}',
  '{"name":"a","name":"b"}',
  '{"seconds":1e308}',
  '{"seconds":-0}',
  '{"max_tokens":1e400}',
  '[]',
  '[{}]',
  'null',
  'true',
  '0',
  '""',
  '\ufeff{}',
  '{"__proto__":{"admin":true},"name":"p"}',
  '{"constructor":{"prototype":{"polluted":1}}}',
)

const bodyCache = new Map<string, fc.Arbitrary<string | null>>()

/** Bodies for a method on a route: mostly contract-shaped (built once per route and method), else odd. */
function bodyArbitrary(
  method: string,
  template: (typeof TEMPLATES)[number] | undefined,
): fc.Arbitrary<string | null> {
  const cacheKey = `${method} ${template?.path ?? ''}`
  let cached = bodyCache.get(cacheKey)
  if (!cached) {
    cached = buildBodyArbitrary(method, template)
    bodyCache.set(cacheKey, cached)
  }
  return cached
}

function buildBodyArbitrary(
  method: string,
  template: (typeof TEMPLATES)[number] | undefined,
): fc.Arbitrary<string | null> {
  const schema = template?.bodies.get(method)
  const fromSchema = schema
    ? mutatedArbitrary(schemaArbitrary(template?.document, schema as Record<string, unknown>)).map((v) =>
        JSON.stringify(v),
      )
    : fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 12, arbitrary: fromSchema },
    { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 2, arbitrary: oddJson },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '   ') },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: hugeJson },
  )
}

const pathArbitrary = (fixtures: Fixtures) =>
  fc.oneof(
    { weight: 16, arbitrary: fc.constantFrom(...TEMPLATES).chain((t) => fill(t.path, fixtures)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...TEMPLATES), fc.constantFrom('/', '//', '/.', '%20', '/x'))
        .chain(([t, tail]) => fill(t.path, fixtures).map((p) => p + tail)),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(weirdSegment, { minLength: 0, maxLength: 4 })
        .chain((segments) =>
          fc
            .constantFrom('/v1', '/v2', '/V1', '/_mock', '', '/v1/..', '//v1', '/_mock/..')
            .map((prefix) => `${prefix}/${segments.join('/')}`),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '/',
        '/v1',
        '/v1/',
        '/_mock',
        '/_mock/',
        '/_mock/docs',
        '/_mock/dashboard',
        '/favicon.ico',
        '/v1/agents/../_mock/clock',
        '/v1/user/',
        '/v1//user',
        '/v1/user;x',
      ),
    },
  )

/** The route template a path falls under, if any (to pick a contract-shaped body). */
function templateOf(path: string): (typeof TEMPLATES)[number] | undefined {
  return TEMPLATES.find((t) => t.pattern.test(path))
}

/** Random, odd and malformed requests across every route of both contracts. */
export function fuzzRequestArbitrary(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const documented = fc
    .constantFrom(...TEMPLATES)
    .chain((t) => fc.tuple(fc.constantFrom(...t.methods), fill(t.path, fixtures)))
  const target = fc
    .oneof(
      { weight: 3, arbitrary: documented },
      { weight: 2, arbitrary: fc.tuple(methodArbitrary, pathArbitrary(fixtures)) },
    )
    .chain(([method, path]) =>
      bodyArbitrary(method.toUpperCase(), templateOf(path)).map((body) => ({ method, path, body })),
    )
  const rest = fc.record({
    query: queryArbitrary(fixtures.ids, fixtures.secrets),
    authorization: authorizationArbitrary(fixtures),
    contentType: contentTypeArbitrary,
    idempotencyKey: fc.option(
      fc.oneof(
        headerValue(12),
        fc.constantFrom('same-key', 'other-key'),
        fc.string({ unit: headerChar, minLength: 250, maxLength: 300 }),
      ),
      { freq: 3 },
    ),
    origin: fc.option(
      fc.oneof(fc.constantFrom('https://app.example.com', 'null', 'http://localhost:3000'), headerValue(30)),
      { freq: 4 },
    ),
    extra: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), headerValue(40), { maxKeys: 2 }),
    clientIp: fc.oneof(
      { weight: 14, arbitrary: fc.constant(null) },
      { weight: 3, arbitrary: fc.constantFrom('127.0.0.1', '::1', '::ffff:127.0.0.1', '127.9.9.9') },
      { weight: 3, arbitrary: fc.constantFrom('10.1.2.3', '192.0.2.55', '2001:db8::1', 'not-an-ip', '') },
    ),
  })
  return fc.tuple(target, rest).map(([{ method, path, body }, r]) => {
    const headers: Record<string, string> = { ...r.extra }
    if (r.authorization !== undefined) headers.authorization = r.authorization
    if (r.contentType !== undefined && body !== null) headers['content-type'] = r.contentType
    if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey
    if (r.origin !== null) headers.origin = r.origin
    return {
      method,
      path,
      query: r.query,
      headers,
      body,
      ...(r.clientIp !== null ? { clientIp: r.clientIp } : {}),
    }
  })
}

/** The fuzz request as the engine receives it. */
export function toEngineRequest(request: FuzzRequest): EngineRequest {
  return {
    method: request.method,
    url: request.query === '' ? request.path : `${request.path}?${request.query}`,
    headers: request.headers,
    body: request.body,
    clientIp: request.clientIp,
  }
}

/** Percent-encodes what may not appear raw in a request target (spaces, controls, non-ASCII). */
export function requestTarget(request: FuzzRequest): string {
  const raw = request.query === '' ? request.path : `${request.path}?${request.query}`
  let out = ''
  for (const byte of Buffer.from(raw, 'utf8'))
    out +=
      byte > 0x20 && byte < 0x7f
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0').toUpperCase()}`
  return out.startsWith('/') ? out : `/${out}`
}
