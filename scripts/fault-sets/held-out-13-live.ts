/**
 * Shows that every fault of held-out fault set 13 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends
 * them, the mock clock moved where time matters) is run against a fresh correct engine, again against another fresh
 * correct engine (the scenario must observe the same thing twice: nothing random leaks into it), and against a fresh
 * engine wrapped in the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic
 * (the first reads of every endpoint, a create and a read) is also run through each fault, which should leave it
 * unchanged. The engines' clocks are frozen at one instant and move only when a scenario advances them, so that every
 * run sees the same times; the seeded demo account (400 call logs over 30 days) gives the volumes where a scenario
 * needs them (`node --import tsx scripts/fault-sets/held-out-13-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-13.ts'
import {
  type Answer,
  type Api,
  agentBody,
  at,
  errorCode,
  freshKey,
  revoke,
  showLive,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** An account whose limits stay out of the way of a scenario that sends hundreds of requests. */
const roomy = { plan: 'enterprise', limits: { hourly: 1_000_000, burst: 100_000 } }

const ids = (answer: Answer): string[] => (answer.body?.data ?? []).map((item: { id: string }) => item.id)
const page = (answer: Answer) => [answer.status, errorCode(answer), answer.body?.data?.length ?? null]

/** Analytics of the session's account. */
const analytics = (api: Api, query: string) => api.call('GET', `/v1/analytics/calls?${query}`)
const bounds = (answer: Answer) =>
  (answer.body?.series ?? []).map((bucket: { start: string; end: string }) => [bucket.start, bucket.end])
const groupCounts = (answer: Answer) =>
  (answer.body?.groups ?? []).map((group: { totals: { call_count: number } }) => group.totals.call_count)

/** The seeded demo account's secret key becomes the session's key. */
const demo = (api: Api) => api.use(api.demoKey())

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ---------------------------------------------------------------------------------------------- lists
  async 'has-more-lost-at-limit-100'(api) {
    demo(api)
    const first = await api.call('GET', '/v1/call-logs?limit=100')
    const second = await api.call('GET', `/v1/call-logs?limit=100&starting_after=${ids(first).at(-1)}`)
    const back = await api.call('GET', `/v1/call-logs?limit=100&ending_before=${ids(second).at(-1)}`)
    return [first, second, back].map((answer) => [answer.body.data.length, answer.body.has_more])
  },

  async 'cursor-past-newest-100-refused'(api) {
    demo(api)
    const first = await api.call('GET', '/v1/call-logs?limit=100')
    const second = await api.call('GET', `/v1/call-logs?limit=100&starting_after=${ids(first).at(-1)}`)
    const third = await api.call('GET', `/v1/call-logs?limit=100&starting_after=${ids(second).at(-1)}`)
    const small = await api.call('GET', `/v1/call-logs?limit=5&starting_after=${ids(second)[10]}`)
    return [page(first), page(second), page(third), page(small)]
  },

  async 'same-second-cursor-tie-break-reversed'(api) {
    await freshKey(api)
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await api.agent(name)
    const seen: string[] = []
    let cursor = ''
    for (let pages = 0; pages < 5; pages++) {
      const answer = await api.call('GET', `/v1/agents?limit=2${cursor ? `&starting_after=${cursor}` : ''}`)
      seen.push(...ids(answer))
      if (!answer.body.has_more) break
      cursor = ids(answer).at(-1) ?? ''
    }
    return { listed: seen.length, distinct: new Set(seen).size }
  },

  async 'ending-before-drops-agent-filter'(api) {
    const account = await freshKey(api)
    const [a, b] = [await api.agent('a'), await api.agent('b')]
    for (const agent of [a, b, a, b]) {
      await api.startCall(account, agent)
      await api.advance(1)
    }
    const ofA = await api.call('GET', `/v1/call-logs?agent_id=${a}`)
    const back = await api.call('GET', `/v1/call-logs?agent_id=${a}&ending_before=${ids(ofA).at(-1)}`)
    return {
      of_a: ofA.body.data.length,
      back: back.body.data.map((log: { agent_id: string }) => (log.agent_id === a ? 'a' : 'other')),
    }
  },

  async 'filtered-has-more-from-scanned-rows'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { direction: 'outbound', to_number: '+14155550123' })
    for (let i = 0; i < 2; i++) {
      await api.advance(1)
      await api.startCall(account, agent)
    }
    const inbound = await api.call('GET', '/v1/call-logs?direction=inbound&limit=2')
    const next = await api.call(
      'GET',
      `/v1/call-logs?direction=inbound&limit=2&starting_after=${ids(inbound).at(-1)}`,
    )
    return {
      inbound: [inbound.body.data.length, inbound.body.has_more],
      next: [next.body.data.length, next.body.has_more],
    }
  },

  // --------------------------------------------------------------------------------------- team members
  async 'team-limit-off-by-one'(api) {
    await freshKey(api, roomy)
    for (let i = 1; i <= 198; i++) {
      const invited = await api.call('POST', '/v1/team-members', { email: `m${i}@live.test` })
      if (invited.status !== 201) throw new Error(`invite ${i}: ${invited.status}`)
    }
    const last = await api.call('POST', '/v1/team-members', { email: 'last@live.test' })
    const over = await api.call('POST', '/v1/team-members', { email: 'over@live.test' })
    const team = await api.call('GET', '/v1/team-members?limit=100')
    return {
      last: [last.status, errorCode(last)],
      over: [over.status, errorCode(over)],
      first_page: [team.body.data.length, team.body.has_more],
    }
  },

  // ------------------------------------------------------------------------------------------ analytics
  async 'week-buckets-split-at-new-year'(api) {
    await freshKey(api)
    const weeks = await analytics(api, 'start=2025-12-22T00:00:00Z&end=2026-01-12T00:00:00Z&granularity=week')
    return { status: weeks.status, granularity: weeks.body.granularity, buckets: bounds(weeks) }
  },

  async 'hour-buckets-45-minute-offsets-halved'(api) {
    await freshKey(api)
    const hours = await analytics(
      api,
      'start=2026-03-01T00:00:00Z&end=2026-03-01T04:00:00Z&granularity=hour&timezone=Asia/Kathmandu',
    )
    return { timezone: hours.body.timezone, starts: bounds(hours).map(([start]: string[]) => start) }
  },

  async 'southern-winter-calendar-buckets-shifted'(api) {
    await freshKey(api)
    const winter = await analytics(
      api,
      'start=2025-06-01T00:00:00Z&end=2025-06-04T00:00:00Z&granularity=day&timezone=Australia/Sydney',
    )
    const summer = await analytics(
      api,
      'start=2026-01-05T00:00:00Z&end=2026-01-07T00:00:00Z&granularity=day&timezone=Australia/Sydney',
    )
    return { winter: [winter.body.granularity, bounds(winter)], summer: bounds(summer) }
  },

  async 'leap-day-merged-with-march-first'(api) {
    await freshKey(api)
    const days = await analytics(api, 'start=2024-02-27T00:00:00Z&end=2024-03-03T00:00:00Z&granularity=day')
    return bounds(days)
  },

  async 'month-bucket-ends-at-last-millisecond'(api) {
    await freshKey(api)
    const months = await analytics(
      api,
      'start=2025-11-01T00:00:00Z&end=2026-02-01T00:00:00Z&granularity=month',
    )
    return bounds(months)
  },

  async 'agent-groups-capped-at-ten'(api) {
    const account = await freshKey(api)
    for (let i = 0; i < 11; i++) await api.startCall(account, await api.agent(`agent ${i}`))
    await api.advance(1)
    const grouped = await analytics(api, `start=${at(0)}&granularity=total&group_by=agent_id`)
    const counts = groupCounts(grouped)
    return {
      groups: counts.length,
      grouped_calls: counts.reduce((a: number, b: number) => a + b, 0),
      calls: grouped.body.totals.call_count,
    }
  },

  async 'groups-ordered-by-count-as-text'(api) {
    const account = await freshKey(api)
    const [ten, nine] = [await api.agent('ten'), await api.agent('nine')]
    for (let i = 0; i < 10; i++) await api.startCall(account, ten)
    for (let i = 0; i < 9; i++) await api.startCall(account, nine)
    await api.advance(1)
    const grouped = await analytics(api, `start=${at(0)}&granularity=total&group_by=agent_id`)
    return groupCounts(grouped)
  },

  async 'group-by-ignored-with-agent-filter'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent)
    await api.advance(1)
    const grouped = await analytics(
      api,
      `start=${at(0)}&granularity=total&group_by=channel&agent_id=${agent}`,
    )
    return {
      group_by: grouped.body.group_by,
      groups: groupCounts(grouped),
      calls: grouped.body.totals.call_count,
    }
  },

  async 'agent-groups-from-all-time-calls'(api) {
    const account = await freshKey(api)
    const [early, late] = [await api.agent('early'), await api.agent('late')]
    await api.startCall(account, early)
    await api.advance(7200)
    await api.startCall(account, late)
    await api.advance(1)
    const grouped = await analytics(api, `start=${at(3600)}&granularity=total&group_by=agent_id`)
    return {
      groups: groupCounts(grouped),
      averages: grouped.body.groups.map(
        (group: { totals: { avg_duration_seconds: unknown } }) => typeof group.totals.avg_duration_seconds,
      ),
    }
  },

  async 'hourly-totals-average-of-averages'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { duration_seconds: 10 })
    await api.startCall(account, agent, { duration_seconds: 20 })
    await api.advance(3600)
    await api.startCall(account, agent, { duration_seconds: 60 })
    await api.advance(300)
    const hours = await analytics(api, `start=${at(0)}&granularity=hour`)
    const total = await analytics(api, `start=${at(0)}&granularity=total`)
    return {
      hourly_totals: hours.body.totals.avg_duration_seconds,
      buckets: hours.body.series.map(
        (b: { metrics: { avg_duration_seconds: unknown } }) => b.metrics.avg_duration_seconds,
      ),
      total: total.body.totals.avg_duration_seconds,
    }
  },

  async 'week-month-ranges-limited-to-744-days'(api) {
    await freshKey(api)
    const months = await analytics(
      api,
      'start=2023-01-01T00:00:00Z&end=2026-01-01T00:00:00Z&granularity=month',
    )
    const weeks = await analytics(api, 'start=2023-01-02T00:00:00Z&end=2026-01-05T00:00:00Z&granularity=week')
    return [months, weeks].map((answer) => [
      answer.status,
      errorCode(answer),
      answer.body.series?.length ?? null,
    ])
  },

  async 'default-start-at-local-midnight'(api) {
    demo(api)
    const week = await analytics(api, 'timezone=Europe/Berlin')
    return {
      start: week.body.start,
      end: week.body.end,
      buckets: week.body.series.length,
      calls: week.body.totals.call_count,
    }
  },

  async 'long-series-cut-to-500-buckets'(api) {
    await freshKey(api)
    const hours = await analytics(api, 'start=2026-02-01T00:00:00Z&end=2026-02-26T00:00:00Z&granularity=hour')
    return { status: hours.status, buckets: hours.body.series.length, first: hours.body.series[0].start }
  },

  // ------------------------------------------------------------------------------------------ call logs
  async 'duration-filters-on-billed-minutes'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { duration_seconds: 57 })
    await api.startCall(account, agent, { duration_seconds: 20 })
    await api.advance(300)
    const all = await api.call('GET', '/v1/call-logs')
    const short = await api.call('GET', '/v1/call-logs?max_duration_seconds=90')
    const long = await api.call('GET', '/v1/call-logs?min_duration_seconds=100')
    const narrow = await api.call('GET', '/v1/call-logs?min_duration_seconds=61&max_duration_seconds=100')
    return {
      durations: all.body.data.map((log: { duration_seconds: number }) => log.duration_seconds).sort(),
      filtered: [short, long, narrow].map(page),
    }
  },

  async 'started-bounds-rounded-to-whole-seconds'(api) {
    const account = await freshKey(api)
    await api.startCall(account, await api.agent('a'))
    await api.advance(100)
    const all = await api.call('GET', '/v1/call-logs')
    const after = await api.call('GET', '/v1/call-logs?started_after=2026-03-10T12:00:00.600Z')
    const before = await api.call('GET', '/v1/call-logs?started_before=2026-03-10T12:00:01.400Z')
    return { started_at: all.body.data[0].started_at, after: page(after), before: page(before) }
  },

  async 'long-started-window-refused'(api) {
    demo(api)
    const quarter = await api.call(
      'GET',
      '/v1/call-logs?started_after=2026-01-01T00:00:00Z&started_before=2026-03-10T00:00:00Z&limit=100',
    )
    const week = await api.call(
      'GET',
      '/v1/call-logs?started_after=2026-03-01T00:00:00Z&started_before=2026-03-08T00:00:00Z&limit=100',
    )
    return { quarter: page(quarter), week: page(week) }
  },

  // ---------------------------------------------------------------------------------------- idempotency
  async 'idempotency-keys-hash-collide'(api) {
    await freshKey(api)
    const send = (name: string, key: string) =>
      api.call('POST', '/v1/agents', agentBody(name), { headers: { 'idempotency-key': key } })
    const first = await send('first', 'batch-Aa-1')
    const second = await send('second', 'batch-BB-1')
    const third = await send('first', 'batch-BB-2')
    const agents = await api.call('GET', '/v1/agents')
    return {
      answers: [first, second, third].map((answer) => [
        answer.status,
        errorCode(answer),
        answer.headers['idempotent-replayed'] ?? null,
      ]),
      agents: agents.body.data.length,
    }
  },

  async 'idempotency-fingerprint-sorts-arrays'(api) {
    await freshKey(api)
    const send = (events: string[]) =>
      api.call('POST', '/v1/agents', agentBody('hooks', { webhook_events: events }), {
        headers: { 'idempotency-key': 'hooks-1' },
      })
    const first = await send(['call.started', 'call.ended'])
    const reordered = await send(['call.ended', 'call.started'])
    return {
      first: first.status,
      reordered: [reordered.status, errorCode(reordered), reordered.headers['idempotent-replayed'] ?? null],
    }
  },

  async 'idempotency-fingerprint-applies-defaults'(api) {
    await freshKey(api)
    const post = (path: string, body: unknown, key: string) =>
      api.call('POST', path, body, { headers: { 'idempotency-key': key } })
    const agent = await post('/v1/agents', agentBody('plain'), 'agent-1')
    const explicit = await post('/v1/agents', agentBody('plain', { status: 'active' }), 'agent-1')
    const member = await post('/v1/team-members', { email: 'kim@live.test' }, 'member-1')
    const viewer = await post('/v1/team-members', { email: 'kim@live.test', role: 'viewer' }, 'member-1')
    const look = (answer: Answer) => [
      answer.status,
      errorCode(answer),
      answer.headers['idempotent-replayed'] ?? null,
    ]
    return { agent: [agent.status, look(explicit)], member: [member.status, look(viewer)] }
  },

  async 'replay-exempt-from-rate-limit'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 2 } })
    const send = () =>
      api.call('POST', '/v1/agents', agentBody('once'), { headers: { 'idempotency-key': 'once-1' } })
    const first = await send()
    const user = await api.call('GET', '/v1/user')
    const retry = await send()
    return {
      first: first.status,
      user: user.status,
      retry: [retry.status, errorCode(retry), retry.headers['idempotent-replayed'] ?? null],
    }
  },

  // ---------------------------------------------------------------------------------------- rate limits
  async 'hourly-headers-from-clock-hour'(api) {
    await freshKey(api)
    for (let i = 0; i < 3; i++) await api.call('GET', '/v1/user')
    await api.advance(3540)
    const late = await api.call('GET', '/v1/user')
    await api.advance(120)
    const next = await api.call('GET', '/v1/user')
    const fields = (answer: Answer) => [answer.headers.ratelimit, answer.headers['x-ratelimit-remaining']]
    return { late: fields(late), next_hour: fields(next) }
  },

  async 'both-exhausted-policy-names-burst'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 2, burst: 2 } })
    await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [
      refused.status,
      refused.body.error?.policy,
      refused.body.error?.retry_after,
      refused.headers['retry-after'],
    ]
  },

  async 'exhausted-remaining-minus-one'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 1 } })
    await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [refused.status, refused.headers.ratelimit, refused.headers['x-ratelimit-remaining']]
  },

  async 'revoked-key-requests-counted'(api) {
    const account = await api.account({ plan: 'free', limits: { hourly: 100, burst: 3 } })
    const old = await api.keyRecord(account)
    const fresh = await api.keyRecord(account)
    await revoke(api, old.id)
    const stale = [
      await api.call('GET', '/v1/agents', undefined, { key: old.value }),
      await api.call('GET', '/v1/agents', undefined, { key: old.value }),
    ]
    const first = await api.call('GET', '/v1/user', undefined, { key: fresh.value })
    const more = [
      await api.call('GET', '/v1/user', undefined, { key: fresh.value }),
      await api.call('GET', '/v1/user', undefined, { key: fresh.value }),
    ]
    return {
      stale: stale.map((answer) => [
        answer.status,
        errorCode(answer),
        answer.headers['www-authenticate'] ?? null,
      ]),
      first: [first.status, first.headers.ratelimit],
      more: more.map((answer) => answer.status),
    }
  },
}

await showLive(faults, scenarios)
