import fc from 'fast-check'
import type { Fixtures } from './fixtures.ts'
import { type FuzzRequest, fuzzRequestArbitrary, requestTarget } from './request-arbitraries.ts'

/** Bytes to write on one connection, and what a correct server must do with them. */
export interface WireCase {
  kind: string
  bytes: Buffer
  /** The path the request names, to pick the contract whose Error schema applies ('' if unparseable). */
  path: string
  head: boolean
  /** The server must answer (false when the bytes end mid-request, so that it may just close). */
  answerExpected: boolean
}

const CRLF = '\r\n'
const MiB = 1024 * 1024

/** Byte sequences that are not UTF-8: a lone continuation byte, truncated and overlong sequences, surrogates. */
const INVALID_UTF8 = [
  [0x80],
  [0xc3, 0x28],
  [0xa0, 0xa1],
  [0xe2, 0x28, 0xa1],
  [0xe2, 0x82],
  [0xf0, 0x28, 0x8c, 0xbc],
  [0xf8, 0xa1, 0xa1, 0xa1, 0xa1],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xff, 0xfe],
  [0xef, 0xbb, 0xbf],
].map((bytes) => Buffer.from(bytes))

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}${CRLF}`)
    .join('')
}

/** The request written cleanly: Host, its headers, Content-Length, Connection: close. */
function clean(request: FuzzRequest, body: Buffer | null, extra = ''): Buffer {
  const head =
    `${request.method} ${requestTarget(request)} HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}` +
    headerLines(request.headers) +
    extra +
    (body !== null ? `Content-Length: ${body.length}${CRLF}` : '') +
    `Connection: close${CRLF}${CRLF}`
  return Buffer.concat([Buffer.from(head, 'latin1'), body ?? Buffer.alloc(0)])
}

const bodyBytes = (request: FuzzRequest) => (request.body === null ? null : Buffer.from(request.body, 'utf8'))

function wire(
  kind: string,
  request: FuzzRequest,
  bytes: Buffer,
  answerExpected = true,
  path = request.path,
): WireCase {
  return { kind, bytes, path, head: request.method.toUpperCase() === 'HEAD', answerExpected }
}

/** Well-formed and malformed HTTP/1.1 requests, built from the fuzz requests of every route. */
export function wireCaseArbitrary(fixtures: Fixtures): fc.Arbitrary<WireCase> {
  const request = fuzzRequestArbitrary(fixtures)
  const { keys } = fixtures
  return fc.oneof(
    { weight: 10, arbitrary: request.map((r) => wire('clean', r, clean(r, bodyBytes(r)))) },
    {
      weight: 3,
      arbitrary: fc.tuple(request, fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([r, bad, at]) => {
        const text =
          r.body ??
          `{"name":"x","voice":{"provider":"elevenlabs","voice_id":"v"},"llm":{"provider":"openai","model":"m"}}`
        const inside = text.indexOf('"') >= 0 ? text.indexOf('"') + 1 : at % (text.length + 1)
        const body = Buffer.concat([Buffer.from(text.slice(0, inside)), bad, Buffer.from(text.slice(inside))])
        return wire(
          'invalid-utf8-body',
          { ...r, method: r.method === 'GET' ? 'POST' : r.method },
          clean({ ...r, method: r.method === 'GET' ? 'POST' : r.method }, body),
        )
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          request,
          fc.constantFrom(
            `Authorization: Bearer ${keys.readOnly}${CRLF}Authorization: Bearer ${keys.full}${CRLF}`,
            `Authorization: Bearer ${keys.full}${CRLF}Authorization: Basic eDp5${CRLF}`,
            `Authorization: Bearer ${keys.revoked}${CRLF}Authorization: Bearer ${keys.full}${CRLF}`,
            `Content-Type: text/plain${CRLF}Content-Type: application/json${CRLF}`,
            `Idempotency-Key: a${CRLF}Idempotency-Key: b${CRLF}`,
            `Origin: https://app.example.com${CRLF}Origin: https://evil.example${CRLF}`,
            `Host: other.example${CRLF}`,
            `Content-Length: 2${CRLF}`,
            `Transfer-Encoding: chunked${CRLF}`,
            `X-Forwarded-For: 10.0.0.1${CRLF}X-Real-IP: 10.0.0.1${CRLF}`,
          ),
        )
        .map(([r, extra]) => {
          const {
            authorization: _a,
            'content-type': _c,
            'idempotency-key': _i,
            origin: _o,
            ...headers
          } = r.headers
          return wire(
            'repeated-headers',
            r,
            clean({ ...r, headers }, bodyBytes(r) ?? Buffer.from('{}'), extra),
          )
        }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(request, fc.boolean()).map(([r, valid]) => {
        const body = bodyBytes(r) ?? Buffer.from('{}')
        const chunks = valid
          ? `${body.length.toString(16)}${CRLF}${body.toString('latin1')}${CRLF}0${CRLF}${CRLF}`
          : `zz${CRLF}${body.toString('latin1')}${CRLF}0${CRLF}${CRLF}`
        const head =
          `${r.method} ${requestTarget(r)} HTTP/1.1${CRLF}Host: x${CRLF}${headerLines(r.headers)}` +
          `Transfer-Encoding: chunked${CRLF}Connection: close${CRLF}${CRLF}`
        return wire(valid ? 'chunked' : 'bad-chunked', r, Buffer.from(head + chunks, 'latin1'))
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          request,
          fc.constantFrom(
            (m: string, t: string) => `${m}  ${t} HTTP/1.1`,
            (m: string, t: string) => `${m} ${t}`,
            (m: string, t: string) => `${m} ${t} HTTP/1.0`,
            (m: string, t: string) => `${m} ${t} HTTP/2.0`,
            (m: string, t: string) => `${m} ${t} HTTP/1.1 extra`,
            (m: string, t: string) => `${m} ${t} http/1.1`,
            (m: string, t: string) => `${m} http://127.0.0.1${t} HTTP/1.1`,
            (_m: string, _t: string) => 'OPTIONS * HTTP/1.1',
            (m: string, t: string) => `${CRLF}${m} ${t} HTTP/1.1`,
            (_m: string, t: string) => `G(T ${t} HTTP/1.1`,
            (m: string, t: string) => `${m} ${t}\u00ff HTTP/1.1`,
            (m: string, t: string) => `${m} ${t}\u0001 HTTP/1.1`,
            (m: string, t: string) => `${m} ${t.replace('/', '/ ')} HTTP/1.1`,
            (m: string, _t: string) => `${m} ${'/v1/'.padEnd(20_000, 'a')} HTTP/1.1`,
            (_m: string, _t: string) => '',
          ),
        )
        .map(([r, line]) => {
          const head = `${line(r.method, requestTarget(r))}${CRLF}Host: x${CRLF}${headerLines(r.headers)}Connection: close${CRLF}${CRLF}`
          return wire('request-line', r, Buffer.from(head, 'latin1'))
        }),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          request,
          fc.constantFrom(
            `No-Colon-Here${CRLF}`,
            `Bad Header: x${CRLF}`,
            `X-Folded: a${CRLF} b${CRLF}`,
            `X-Nul: a\u0000b${CRLF}`,
            `X-Bell: a\u0007b${CRLF}`,
            `X-Huge: ${'h'.repeat(20_000)}${CRLF}`,
            `: empty-name${CRLF}`,
            `X-Lf: only\n`,
            `X-Latin: \u00e9\u00ff\u0080${CRLF}`,
            Array.from({ length: 2500 }, (_, i) => `X-H${i}: v${CRLF}`).join(''),
          ),
        )
        .map(([r, extra]) => wire('header-garbage', r, clean(r, bodyBytes(r), extra))),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(request, fc.integer({ min: 1, max: 50 })).map(([r, missing]) => {
        const body = bodyBytes(r) ?? Buffer.from('{"name":"x"}')
        const head = `${r.method} ${requestTarget(r)} HTTP/1.1${CRLF}Host: x${CRLF}${headerLines(r.headers)}Content-Length: ${body.length + missing}${CRLF}${CRLF}`
        return wire('short-body', r, Buffer.concat([Buffer.from(head, 'latin1'), body]), false)
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(request, fc.constantFrom(MiB + 1, 2 * MiB, 1e12)).map(([r, declared]) => {
        const head = `POST ${requestTarget(r)} HTTP/1.1${CRLF}Host: x${CRLF}${headerLines(r.headers)}Content-Length: ${declared}${CRLF}${CRLF}`
        return wire(
          'oversize-declared',
          r,
          Buffer.concat([Buffer.from(head, 'latin1'), Buffer.alloc(1024, 0x7b)]),
        )
      }),
    },
  )
}
