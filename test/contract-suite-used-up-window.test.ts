import { describe, expect, it } from 'vitest'
import { cannotWrite } from '../contracts/checks/cannot-write.ts'
import type { ContractCheck } from '../contracts/checks/types.ts'
import { usedUpWindowCheck } from '../contracts/checks/used-up-window.ts'
import { type RunOptions, runChecks } from '../contracts/runner/run-checks.ts'
import { openSession } from '../contracts/runner/session.ts'
import { createClock } from '../mocks/engine/clock.ts'
import { createMockPlatform } from '../mocks/platform.ts'
import { engineFetch } from './mutants/engine-fetch.ts'

const BASE_URL = 'http://staging.test/v1'
/** The data the API serves (keys, rate-limit windows and the journal move on reads). */
const DATA = ['accounts', 'agents', 'call_logs', 'team_members', 'integrations', 'idempotency', 'calls']

/** Spends more than the pro plan's burst window (50 per 60 s) with reads, one after another, paced. */
const spender: ContractCheck = {
  id: 'test/spender',
  area: 'responses',
  group: 'Test',
  title: 'spends more than a burst window',
  async run(ctx) {
    for (let i = 0; i < 55; i++) await ctx.call({ method: 'GET', path: '/user', fresh: true })
  },
}

interface Sent {
  method: string
  path: string
  key: boolean
  body: unknown
  status: number
}

/** What the target does to an answer: `now` moves the clock of the mock and of the run. */
type Rewrite = (response: Response, sent: Sent, clock: { advance(ms: number): void }) => Promise<Response>

/**
 * A read-only run (one pro-plan secret key) of the spender and the used-up window check against the mock, on
 * a virtual clock; `rewrite` changes the target's answers, `onSend` sees each request before the target.
 */
async function run(
  rewrite?: Rewrite,
  options: RunOptions = {},
  onSend?: (count: number, clock: { advance(ms: number): void }) => void,
) {
  let now = Date.parse('2026-03-09T12:00:00Z')
  const clock = {
    advance(ms: number) {
      now += ms
    },
  }
  const platform = await createMockPlatform({ clock: createClock({ realNow: () => now }) })
  const data = () => DATA.map((name) => [name, platform.snapshot().tables[name]])
  const before = data()
  const inner = engineFetch(() => platform, BASE_URL)
  const sent: Sent[] = []
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input))
    const entry: Sent = {
      method: init?.method ?? 'GET',
      path: url.pathname.replace(/^\/v1/, '') + url.search,
      key: new Headers(init?.headers).has('authorization'),
      body: init?.body,
      status: 0,
    }
    sent.push(entry)
    onSend?.(sent.length, clock)
    let response = await inner(input, init)
    if (rewrite) response = await rewrite(response, entry, clock)
    entry.status = response.status
    return response
  }
  const result = await runChecks(
    { baseUrl: BASE_URL, secretKey: platform.demo.secretKey as string, fetch },
    {
      checks: [spender, usedUpWindowCheck],
      now: () => now,
      sleep: async (ms) => clock.advance(ms),
      ...options,
    },
  )
  const outcome = result.outcomes.find((o) => o.check === usedUpWindowCheck)
  return { result, outcome, sent, before, after: data(), key: platform.demo.secretKey as string }
}

/** Rewrites the JSON body and headers of the 429 answers the `pick` selects (by their order among 429s). */
function rewrite429(
  change: (index: number, headers: Headers, body: { error: Record<string, unknown> }) => void,
): Rewrite {
  let index = 0
  return async (response) => {
    if (response.status !== 429) return response
    const headers = new Headers(response.headers)
    const body = (await response.json()) as { error: Record<string, unknown> }
    change(index++, headers, body)
    return new Response(JSON.stringify(body), { status: 429, headers })
  }
}

describe('rate-limits/used-up-window: the 429 of every operation, for nothing, in a read-only run', () => {
  it('sends one request per operation that documents a 429 when the run first waits, all refused, nothing written', async () => {
    const { result, outcome, sent, before, after, key } = await run()
    expect(outcome?.status, outcome?.failure?.actual ?? outcome?.reason).toBe('passed')
    const refused = sent.filter((s) => s.status === 429)
    // Every operation but the two that create (a POST to a collection with a key could write).
    expect(refused.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /user',
      'GET /agents',
      'GET /agents/agt_0ContractSuiteNone0',
      'GET /call-logs',
      'GET /call-logs/call_0ContractSuiteNone0',
      'GET /analytics/calls',
      'GET /integrations',
      'GET /integrations/not_a_provider',
      'GET /team-members',
      'GET /team-members/mem_0ContractSuiteNone0',
      'PATCH /agents/agt_0ContractSuiteNone0',
      'DELETE /agents/agt_0ContractSuiteNone0',
      'DELETE /call-logs/call_0ContractSuiteNone0',
      'PATCH /integrations/not_a_provider',
      'PATCH /team-members/mem_0ContractSuiteNone0',
      'DELETE /team-members/mem_0ContractSuiteNone0',
    ])
    expect(outcome?.notes.join()).toMatch(/no request for createAgent .*inviteTeamMember/)
    for (const write of sent.filter((s) => s.method !== 'GET'))
      expect(cannotWrite({ method: write.method, path: write.path }, [key])).toBe(true)
    // Sent while the spender waited, before the wait: the spender's requests are all admitted.
    expect(sent.filter((s) => s.path === '/user' && s.status === 200)).toHaveLength(56)
    expect(result.stats.counted).toBe(57)
    expect(result.stats.waits).toBe(1)
    const rows = result.coverage.rows.filter((row) =>
      row.statuses.some((s) => s.status === '429' && s.exercised),
    )
    expect(rows).toHaveLength(16)
    expect(after).toEqual(before)
  })

  it('is not applicable after one request, and sends no write, when the target has room though the run saw none', async () => {
    // The window slides free just as the first probe is sent (the 51st request: after the 50 of the window).
    const { outcome, sent } = await run(undefined, {}, (count, clock) => {
      if (count === 51) clock.advance(61_000)
    })
    expect(outcome?.status).toBe('not-applicable')
    expect(outcome?.reason).toMatch(/^not applicable now: GET \/user answered 200, not 429/)
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([])
    expect(sent.filter((s) => s.status === 429)).toEqual([])
    // The session's 2, the spender's 55 and the check's one GET /user.
    expect(sent).toHaveLength(58)
  })

  it('stops at the first answer that is not 429, before any write, when the window frees up meanwhile', async () => {
    let refused = 0
    const { outcome, sent } = await run(async (response, _sent, clock) => {
      if (response.status === 429 && ++refused === 3) clock.advance(61_000)
      return response
    })
    expect(outcome?.status, outcome?.failure?.actual).toBe('passed')
    expect(outcome?.notes.join()).toContain(
      'the window freed up after 3 refused requests: GET /call-logs answered 200',
    )
    expect(sent.filter((s) => s.method !== 'GET')).toEqual([])
  })

  it.each<[string, Parameters<typeof rewrite429>[0], RegExp]>([
    [
      'a Retry-After other than error.retry_after',
      (i, headers) => {
        if (i === 4) headers.set('retry-after', String(Number(headers.get('retry-after')) - 1))
      },
      // Told by the check, or first by the conformance of every 429 (contracts/checks/conformance.ts).
      /error\.retry_after equal to Retry-After|error\.retry_after \S+ must equal Retry-After/,
    ],
    [
      'a Retry-After that is not the largest t of the used-up windows',
      (i, headers, body) => {
        if (i !== 1) return
        headers.set('retry-after', '7')
        body.error.retry_after = 7
      },
      /Retry-After equal to the largest t of the exhausted windows|Retry-After "7" must be the largest t of the used-up windows/,
    ],
    [
      'a Retry-After that grows from one 429 to the next',
      (i, headers, body) => {
        // The first answer says 10 s less, consistently (header, body and the burst window's t).
        if (i !== 0) return
        const less = Number(headers.get('retry-after')) - 10
        headers.set('retry-after', String(less))
        headers.set(
          'ratelimit',
          (headers.get('ratelimit') ?? '').replace(/"burst";r=0;t=\d+/, `"burst";r=0;t=${less}`),
        )
        body.error.retry_after = less
      },
      /Retry-After at most the 50 s of the answer before \(GET \/user\)/,
    ],
    [
      'a 429 without its error envelope code',
      (i, _, body) => {
        if (i === 10) body.error.code = 'slow_down'
      },
      /rate_limit_exceeded/,
    ],
  ])('fails on %s', async (_, change, message) => {
    const { outcome } = await run(rewrite429(change))
    expect(outcome?.status).toBe('failed')
    expect(`${outcome?.failure?.expected} / ${outcome?.failure?.actual}`).toMatch(message)
  })

  it('runs at its place, sending one request, when the run never waited for a window', async () => {
    const { outcome, sent } = await run(undefined, { checks: [usedUpWindowCheck] })
    expect(outcome?.status).toBe('not-applicable')
    expect(sent.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      'GET /user 200',
      'GET /agents/agt_0ContractSuiteNone0 404',
      'GET /user 200',
    ])
  })
})

describe('rate-limits/used-up-window where the run may spend a rate limit on the mock', () => {
  it('uses up the burst window of an account of its own and passes alone (as the mutation run runs it)', async () => {
    const platform = await createMockPlatform()
    const inner = engineFetch(() => platform, BASE_URL)
    const sent: { key: string | null; status: number }[] = []
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const response = await inner(input, init)
      if (new URL(String(input)).pathname.startsWith('/v1/'))
        sent.push({ key: new Headers(init?.headers).get('authorization'), status: response.status })
      return response
    }
    const session = await openSession({ baseUrl: BASE_URL, provision: 'mock', destructive: true, fetch })
    const outcome = await session.run(usedUpWindowCheck)
    const teardown = await session.close()
    expect(outcome.status, outcome.failure?.actual ?? outcome.reason).toBe('passed')
    const refused = sent.filter((s) => s.status === 429)
    expect(refused).toHaveLength(16)
    // All with the one key whose free-plan burst window (10) the check used up.
    expect(new Set(refused.map((s) => s.key)).size).toBe(1)
    expect(sent.filter((s) => s.key === refused[0]?.key && s.status === 200)).toHaveLength(10)
    expect(teardown.problems).toEqual([])
  })
})

describe('the run cache and the writes that cannot write', () => {
  const reads: ContractCheck = {
    id: 'test/reads',
    area: 'responses',
    group: 'Test',
    title: 'reads',
    async run(ctx) {
      await ctx.call({ method: 'GET', path: '/agents' })
    },
  }
  const harmless: ContractCheck = {
    id: 'test/harmless',
    area: 'bad-input',
    group: 'Test',
    title: 'deletes an agent that does not exist',
    async run(ctx) {
      await ctx.call({ method: 'DELETE', path: '/agents/agt_0ContractSuiteNone0', conformance: false })
    },
  }
  const creates: ContractCheck = {
    id: 'test/creates',
    area: 'resources',
    group: 'Test',
    title: 'creates an agent',
    needs: ['write'],
    async run(ctx) {
      await ctx.call({ method: 'POST', path: '/agents', json: { name: 'x' }, conformance: false })
    },
  }

  async function sequence(checks: ContractCheck[], destructive = false) {
    const platform = await createMockPlatform()
    const sent: string[] = []
    const inner = engineFetch(() => platform, BASE_URL)
    const fetch: typeof globalThis.fetch = async (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname.replace(/^\/v1/, '')}`)
      return inner(input, init)
    }
    const result = await runChecks(
      { baseUrl: BASE_URL, secretKey: platform.demo.secretKey as string, fetch, destructive },
      { checks },
    )
    return { result, sent: sent.slice(2) }
  }

  it('keeps the answers after a request that cannot write, whatever it was answered', async () => {
    const { result, sent } = await sequence([reads, harmless, reads])
    expect(sent).toEqual(['GET /agents', 'DELETE /agents/agt_0ContractSuiteNone0'])
    expect(result.stats.cacheHits).toBe(1)
  })

  it('forgets them after a request that can write', async () => {
    const { sent } = await sequence([reads, creates, reads], true)
    expect(sent.slice(0, 3)).toEqual(['GET /agents', 'POST /agents', 'GET /agents'])
  })
})
