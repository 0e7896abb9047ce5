import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { describe, expect, it } from 'vitest'
import { createContract } from '../../contracts/contract/contract.ts'
import {
  formatReceiverSummary,
  toReceiverHtml,
  toReceiverJUnit,
} from '../../contracts/receiver/receiver-reports.ts'
import type { ReceiverTarget } from '../../contracts/receiver/receiver-target.ts'
import {
  ReceiverConfigError,
  type ReceiverTestResult,
  ReceiverUnreachableError,
  testReceiver,
} from '../../contracts/receiver/test-receiver.ts'
import { BROKEN, correctReceiver, type Handler, serve } from './receivers.ts'

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`
const SECRET = newSecret()

const failedIds = (result: ReceiverTestResult) =>
  result.entries.filter((e) => e.status === 'failed').map((e) => e.id)

/** A handler that records every request it gets (headers, raw body) before `inner` answers it. */
function recording(inner: Handler) {
  const requests: { headers: Record<string, string>; body: string }[] = []
  const handler: Handler = async (request) => {
    requests.push({ headers: Object.fromEntries(request.headers), body: await request.clone().text() })
    return inner(request)
  }
  return { handler, requests }
}

describe('testReceiver against a correct receiver (standardwebhooks)', () => {
  it('passes every check, in-process and over HTTP', async () => {
    const inProcess = await testReceiver({ fetch: correctReceiver(SECRET).handler }, SECRET)
    const server = await serve(correctReceiver(SECRET).handler)
    try {
      const overHttp = await testReceiver({ url: server.url }, SECRET)
      for (const result of [inProcess, overHttp]) {
        expect(failedIds(result)).toEqual([])
        expect(result.passed).toBe(true)
        expect(result.entries).toHaveLength(17)
        expect(formatReceiverSummary(result)).toContain('Total: 17 passed, 0 failed')
      }
      expect(overHttp.url).toBe(server.url)
    } finally {
      await server.close()
    }
  })

  it('sends every contract event once, its body valid against the contract, signed with the secret', async () => {
    const { handler, requests } = recording(correctReceiver(SECRET).handler)
    await testReceiver({ fetch: handler }, SECRET)
    const contract = createContract()
    const verifier = new Webhook(SECRET)
    for (const webhook of contract.webhooks) {
      const delivered = requests.filter((r) => JSON.parse(r.body).type === webhook.type)
      expect(delivered.length, webhook.type).toBeGreaterThan(0)
      // Every body of a contract type is valid against its schema (the changed body too: another cost), and
      // at least one delivery of each verifies with the secret.
      for (const r of delivered)
        expect(contract.validator.validate(webhook.schema, JSON.parse(r.body)), webhook.type).toEqual([])
      const verified = delivered.filter((r) => {
        try {
          verifier.verify(r.body, r.headers)
          return true
        } catch {
          return false
        }
      })
      expect(verified.length, webhook.type).toBeGreaterThan(0)
    }
    expect(contract.webhooks.map((w) => w.type)).toEqual([
      'call.started',
      'call.ended',
      'transcript.ready',
      'call.analyzed',
    ])
  })

  it('delivers one webhook-id twice, and the four events of one call last first', async () => {
    const { handler, requests } = recording(correctReceiver(SECRET).handler)
    await testReceiver({ fetch: handler }, SECRET)
    const ids = requests.map((r) => r.headers['webhook-id'])
    const twice = ids.filter((id, i) => id && ids.indexOf(id) !== i)
    expect(twice).toHaveLength(1)
    const byCall = new Map<string, string[]>()
    for (const r of requests) {
      const event = JSON.parse(r.body)
      const call = String(event.data.object.id)
      byCall.set(call, [...(byCall.get(call) ?? []), event.type])
    }
    expect([...byCall.values()]).toContainEqual([
      'call.analyzed',
      'transcript.ready',
      'call.ended',
      'call.started',
    ])
  })
})

describe('testReceiver against receivers broken in one way', () => {
  it.each(BROKEN.map((b) => [b.name, b] as const))(
    'a receiver that %s fails its own checks, and only those',
    async (_, broken) => {
      const result = await testReceiver({ fetch: broken.make(SECRET).handler }, SECRET)
      expect(broken.fails.length).toBeGreaterThan(0)
      expect(failedIds(result)).toEqual(broken.fails)
      expect(result.passed).toBe(false)
      for (const entry of result.entries.filter((e) => e.status === 'failed')) {
        expect(entry.details?.curl).toMatch(/^curl -sS -i -X POST /)
        expect(entry.details?.request).toMatch(/^> POST http:\/\/localhost\/webhooks\n/)
      }
    },
  )

  it('fails a receiver that still accepts the rotated-out secret, when given that secret', async () => {
    const previous = newSecret()
    const old = new Webhook(previous)
    const current = correctReceiver(SECRET).handler
    // Verifies with the new secret, then falls back to the old one: the rotation never finished.
    const handler: Handler = async (request) => {
      const answer = await current(request.clone())
      if (answer.status < 400) return answer
      try {
        old.verify(await request.text(), Object.fromEntries(request.headers))
        return new Response(null, { status: 204 })
      } catch {
        return answer
      }
    }
    const result = await testReceiver({ fetch: handler }, SECRET, { previousSecret: previous })
    expect(failedIds(result)).toEqual(['refusals/rotated-out-secret'])
    const text = JSON.stringify(result) + formatReceiverSummary(result)
    expect(text).not.toContain(previous)
    expect(text).not.toContain(previous.slice(6))
  })
})

describe('testReceiver: grading', () => {
  it('fails every check of a receiver that redirects, naming the redirect', async () => {
    const handler: Handler = async () =>
      new Response(null, { status: 308, headers: { location: 'https://elsewhere.example/hook' } })
    const server = await serve(handler)
    try {
      const result = await testReceiver({ url: server.url }, SECRET)
      expect(failedIds(result)).toHaveLength(17)
      expect(result.entries[0]?.details?.actual).toMatch(
        /^308 in \d+ ms: a redirect to https:\/\/elsewhere\.example\/hook/,
      )
    } finally {
      await server.close()
    }
  })

  it('fails a refusal answered with a 5xx (a server error is not a refusal)', async () => {
    const correct = correctReceiver(SECRET).handler
    const handler: Handler = async (request) => {
      const answer = await correct(request)
      return answer.status >= 400 ? new Response('oops', { status: 503 }) : answer
    }
    const result = await testReceiver({ fetch: handler }, SECRET)
    expect(failedIds(result)).toEqual(BROKEN[0]?.fails)
    expect(result.entries.find((e) => e.id === 'refusals/body-changed')?.details?.actual).toMatch(
      /^503 in \d+ ms: a server error, not a refusal/,
    )
  })

  it('fails a delivery not answered within the timeout, and only that one', async () => {
    const correct = correctReceiver(SECRET).handler
    const handler: Handler = async (request) => {
      const body = await request.clone().text()
      if (JSON.parse(body).type === 'call.transferred') await new Promise((r) => setTimeout(r, 2000))
      return correct(request)
    }
    const server = await serve(handler)
    try {
      const result = await testReceiver({ url: server.url }, SECRET, { timeoutMs: 300 })
      expect(failedIds(result)).toEqual(['acceptances/unknown-type'])
      expect(result.entries.find((e) => e.id === 'acceptances/unknown-type')?.details?.actual).toBe(
        'no answer within 0.3 s',
      )
    } finally {
      await server.close()
    }
  })

  it('reports a 4xx to what must be acknowledged as a refusal', async () => {
    const result = await testReceiver({ fetch: async () => new Response(null, { status: 401 }) }, SECRET)
    expect(failedIds(result).every((id) => !id.startsWith('refusals/'))).toBe(true)
    expect(failedIds(result)).toHaveLength(9)
    expect(result.entries[0]?.details?.actual).toMatch(
      /^401 in \d+ ms: refused a delivery it must acknowledge/,
    )
  })
})

describe('testReceiver: what it refuses to start with, and secrets', () => {
  const cases: [string, ReceiverTarget, string, RegExp][] = [
    [
      'an API key as the secret',
      { url: 'http://127.0.0.1:9/' },
      `sk-svc-${'a'.repeat(40)}`,
      /whsec_ followed by base64/,
    ],
    [
      'a secret that is not base64',
      { url: 'http://127.0.0.1:9/' },
      'whsec_not base64!',
      /whsec_ followed by base64/,
    ],
    ['an empty secret', { url: 'http://127.0.0.1:9/' }, 'whsec_', /whsec_ followed by base64/],
    ['a URL that is not http', { url: 'ftp://127.0.0.1/hook' }, SECRET, /must be http:\/\/ or https:\/\//],
    ['no URL at all', { url: 'not a url' }, SECRET, /is not a URL/],
  ]
  it.each(cases)(
    'refuses %s before sending anything, without echoing the secret',
    async (_, target, secret, message) => {
      const error = await testReceiver(target, secret).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ReceiverConfigError)
      expect((error as Error).message).toMatch(message)
      if (secret.length > 8) expect((error as Error).message).not.toContain(secret)
    },
  )

  it('sends nothing to a handler when the secret is unusable', async () => {
    const { handler, requests } = recording(correctReceiver(SECRET).handler)
    await expect(testReceiver({ fetch: handler }, 'whsec_%%%')).rejects.toThrow(ReceiverConfigError)
    expect(requests).toHaveLength(0)
  })

  it('stops at the first delivery when nothing listens at the URL', async () => {
    const server = await serve(correctReceiver(SECRET).handler)
    const url = server.url
    await server.close()
    const error = await testReceiver({ url }, SECRET).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReceiverUnreachableError)
    expect((error as Error).message).toMatch(
      /^Nothing answered at http:\/\/127\.0\.0\.1:\d+\/webhooks: could not connect \(ECONNREFUSED\)/,
    )
  })

  it('never shows the secret, even when the receiver echoes it back', async () => {
    const handler: Handler = async () => new Response(`bad secret? mine is ${SECRET}`, { status: 200 })
    const result = await testReceiver({ fetch: handler }, SECRET)
    expect(failedIds(result).length).toBeGreaterThan(0)
    const everything = [
      JSON.stringify(result),
      formatReceiverSummary(result),
      toReceiverJUnit(result),
      toReceiverHtml(result),
    ].join('\n')
    expect(everything).toContain('mine is whsec_[redacted]')
    expect(everything).not.toContain(SECRET)
    expect(everything).not.toContain(SECRET.slice(6))
  })
})
