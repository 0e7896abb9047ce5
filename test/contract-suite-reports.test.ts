import { describe, expect, it } from 'vitest'
import { bodyBreakages, parameterBreakages } from '../contracts/contract/breakages.ts'
import { createContract } from '../contracts/contract/contract.ts'
import { describeExchange, redactText, toCurl } from '../contracts/http/exchange.ts'
import type { ReportEntry } from '../contracts/report/entries.ts'
import { toJUnit } from '../contracts/report/junit.ts'
import { formatSummary } from '../contracts/report/summary.ts'

const KEY = `sk-svc-${'A1b2C3d4'.repeat(5)}`
const request = {
  method: 'POST',
  url: 'http://127.0.0.1:4010/v1/agents',
  headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  body: `{"name":"it's"}`,
}

describe('curl commands and exchanges in reports', () => {
  it('names the environment variable of a key the user gave, never its value', () => {
    const curl = toCurl(request, new Map([[KEY, 'VOICE_API_KEY']]), [KEY])
    expect(curl).toContain('-H "Authorization: Bearer $VOICE_API_KEY"')
    expect(curl).toContain(`--data-raw '{"name":"it'\\''s"}'`)
    expect(curl).not.toContain(KEY)
  })

  it('shows a provisioned key as its prefix and last 4 characters', () => {
    expect(toCurl(request, new Map(), [KEY])).toContain("-H 'Authorization: Bearer sk-svc-...C3d4'")
  })

  it('redacts keys wherever they appear in a request or response, even unknown ones', () => {
    const other = `pk-svc-${'Zz9'.repeat(12)}`
    const text = describeExchange(
      {
        request,
        response: { status: 401, headers: {}, text: `{"message":"bad ${other}"}`, json: {}, durationMs: 1 },
      },
      [KEY],
    )
    expect(text).not.toContain(KEY)
    expect(text).not.toContain(other)
    expect(redactText(other, [])).toBe('pk-svc-...9Zz9')
  })
})

describe('reports', () => {
  const entries: ReportEntry[] = [
    {
      id: 'a',
      area: 'authentication',
      group: 'GET /user',
      title: 'returns 401',
      status: 'passed',
      durationMs: 3,
      requests: 1,
    },
    {
      id: 'b',
      area: 'authentication',
      group: 'GET /user',
      title: 'revoked <key>',
      status: 'failed',
      failure: 'Expected: 401\nActual:   200',
      durationMs: 4,
      requests: 1,
    },
    {
      id: 'c',
      area: 'rate-limits',
      group: 'free plan',
      title: 'burst',
      status: 'skipped',
      reason: 'run with --destructive',
      durationMs: 0,
      requests: 0,
    },
  ]

  it('summarises each area and lists failures in full and skips with their reason', () => {
    const summary = formatSummary(entries, 'Contract suite', 1500)
    expect(summary).toMatch(/x +Authentication +1 passed, 1 failed/)
    expect(summary).toContain('Expected: 401')
    expect(summary).toContain('run with --destructive (1)')
  })

  it('writes JUnit XML with one suite per area, failures with their report and skips with their reason', () => {
    const xml = toJUnit(entries, 'suite', 1500)
    expect(xml).toContain('<testsuite name="Authentication" tests="2" failures="1"')
    expect(xml).toContain('name="revoked &lt;key&gt;"')
    expect(xml).toContain('<skipped message="run with --destructive"/>')
  })
})

describe('parameterBreakages', () => {
  it("breaks a pattern with a value the pattern refuses: a key of two words where printable characters are asked for, '!!' where an ID is", () => {
    const contract = createContract()
    const idempotency = contract.operation('createAgent').parameters.find((p) => p.name === 'Idempotency-Key')
    const cursor = contract.operation('listAgents').parameters.find((p) => p.name === 'starting_after')
    const refusing = (schema: unknown) =>
      parameterBreakages(contract.document, schema).find((b) => b.what === 'not matching the pattern')?.value
    expect(refusing(idempotency?.schema)).toBe('two words')
    expect(refusing(cursor?.schema)).toBe('!!')
  })

  it('sends an empty value where a patterned value must hold a character: a server may read it as absent', () => {
    const contract = createContract()
    const idempotency = contract.operation('createAgent').parameters.find((p) => p.name === 'Idempotency-Key')
    const breakages = parameterBreakages(contract.document, idempotency?.schema)
    expect(breakages.find((b) => b.what === 'too short')?.value).toBe('')
  })
})

describe('bodyBreakages', () => {
  it('breaks createAgent one field at a time, naming the field each 422 must report', () => {
    const contract = createContract()
    const base = {
      name: 'a',
      voice: { provider: 'openai', voice_id: 'v' },
      llm: { provider: 'openai', model: 'm' },
    }
    const breakages = bodyBreakages(
      contract.document,
      contract.operation('createAgent').requestBody?.schema,
      base,
    )
    const find = (param: string, code: string) =>
      breakages.find((b) => b.param === param && b.codes.includes(code))
    expect(find('name', 'required')?.body).not.toHaveProperty('name')
    expect(find('voice.speed', 'maximum')?.body).toMatchObject({ voice: { speed: 3 } })
    expect(find('contract_unknown_field', 'unknown_field')).toBeDefined()
    expect(find('status', 'enum')).toBeDefined()
    expect(find('webhook_events.0', 'enum')).toBeDefined()
    expect(find('max_call_duration_seconds', 'minimum')?.body).toMatchObject({
      max_call_duration_seconds: 29,
    })
  })
})
