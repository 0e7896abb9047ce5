/**
 * Shows that every fault of held-out fault set 11 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends
 * them, the mock clock moved where time matters) is run against a fresh correct engine, again against another fresh
 * correct engine (the scenario must observe the same thing twice: nothing random leaks into it), and against a fresh
 * engine wrapped in the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic
 * (the first reads of every endpoint, a create and a read) is also run through each fault, which should leave it
 * unchanged. The engines' clocks are frozen at one instant and move only when a scenario advances them, so that every
 * run sees the same times (`node --import tsx scripts/fault-sets/held-out-11-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-11.ts'
import { type Answer, type Api, agentBody, at, errorCode, revoke, showLive } from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** An account with a key (the session's key), an agent and a simulated call of it; their ids. */
async function withCall(
  api: Api,
  call: Record<string, unknown> = {},
  agentExtra: Record<string, unknown> = {},
) {
  const account = await api.account()
  await api.key(account)
  const agent = await api.agent('a', agentExtra)
  const id = await api.startCall(account, agent, call)
  return { account, agent, id }
}

/** A fresh account whose key becomes the session's key. */
const freshKey = async (api: Api) => api.key(await api.account())

const errorParam = (answer: Answer) => answer.body?.error?.param ?? null

/** Analytics of the session's account from the scenario's first instant. */
const analytics = (api: Api, query: string) => api.call('GET', `/v1/analytics/calls?start=${at(0)}&${query}`)

const SLACK_TOKEN = { bot_token: 'xoxb-4821-1177-Zt9sQm2LwR8kPc7H' }

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------ call logs
  async 'unanswered-call-end-reason-error'(api) {
    const { id } = await withCall(api, { outcome: 'no_answer', ring_seconds: 20 })
    await api.advance(60)
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    const list = await api.call('GET', '/v1/call-logs')
    return { status: read.body.status, by_id: read.body.end_reason, listed: list.body.data[0].end_reason }
  },

  async 'outbound-call-numbers-swapped'(api) {
    const customer = '+14155550123'
    const { id } = await withCall(api, { direction: 'outbound', to_number: customer, duration_seconds: 10 })
    await api.advance(30)
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    const list = await api.call('GET', '/v1/call-logs')
    const sides = (log: { from_number: string; to_number: string }) => ({
      from_is_customer: log.from_number === customer,
      to_is_customer: log.to_number === customer,
    })
    return { by_id: sides(read.body), listed: sides(list.body.data[0]) }
  },

  async 'recording-url-before-call-ends'(api) {
    const { id } = await withCall(api, { duration_seconds: 30 }, { recording_enabled: true })
    await api.advance(10)
    const live = await api.call('GET', `/v1/call-logs/${id}`)
    const listed = await api.call('GET', '/v1/call-logs')
    await api.advance(60)
    const ended = await api.call('GET', `/v1/call-logs/${id}`)
    return {
      live: [live.body.status, live.body.recording_url !== null, listed.body.data[0].recording_url !== null],
      ended: [ended.body.status, ended.body.recording_url !== null],
    }
  },

  async 'empty-transcript-as-null'(api) {
    const { id } = await withCall(api, { duration_seconds: 20 })
    const queued = await api.call('GET', `/v1/call-logs/${id}`)
    await api.advance(100)
    const ended = await api.call('GET', `/v1/call-logs/${id}`)
    return {
      queued: [queued.body.status, queued.body.transcript],
      ended: [ended.body.status, Array.isArray(ended.body.transcript)],
    }
  },

  async 'failed-call-analysed'(api) {
    const { id } = await withCall(api, { outcome: 'failed' })
    await api.advance(300)
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    return { status: read.body.status, end_reason: read.body.end_reason, analysis: read.body.analysis }
  },

  async 'deleted-agent-filter-refused'(api) {
    const { agent } = await withCall(api, { duration_seconds: 10 })
    await api.advance(100)
    const before = await api.call('GET', `/v1/call-logs?agent_id=${agent}`)
    const removed = await api.call('DELETE', `/v1/agents/${agent}`)
    const after = await api.call('GET', `/v1/call-logs?agent_id=${agent}`)
    return {
      before: [before.status, before.body.data?.length ?? null],
      removed: removed.status,
      after: [after.status, errorCode(after), after.body.data?.length ?? null],
    }
  },

  // ------------------------------------------------------------------------------------------ analytics
  async 'group-average-integer-division'(api) {
    const { account, agent } = await withCall(api, { duration_seconds: 10 })
    await api.advance(1)
    await api.startCall(account, agent, { duration_seconds: 11 })
    await api.advance(300)
    const stats = await analytics(api, 'granularity=total&group_by=agent_id')
    return {
      top: stats.body.totals.avg_duration_seconds,
      group: stats.body.groups[0].totals.avg_duration_seconds,
      bucket: stats.body.groups[0].series[0].metrics.avg_duration_seconds,
    }
  },

  async 'unanalysed-calls-counted-neutral'(api) {
    await withCall(api, { duration_seconds: 10 })
    await api.advance(30)
    const waiting = await analytics(api, 'granularity=total')
    await api.advance(200)
    const analysed = await analytics(api, 'granularity=total')
    const counts = (answer: Answer) => ({
      completed: answer.body.totals.completed_count,
      analyzed: answer.body.totals.analyzed_count,
      // Which sentiment a simulated call gets depends on its (random) id: only their sum is observed.
      sentiments: Object.values(answer.body.totals.sentiment as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      ),
    })
    return { waiting: counts(waiting), analysed: counts(analysed) }
  },

  async 'agent-groups-labelled-by-name'(api) {
    const { agent } = await withCall(api, { duration_seconds: 10 })
    await api.advance(100)
    const stats = await analytics(api, 'granularity=total&group_by=agent_id')
    return stats.body.groups.map((group: { value: string }) =>
      group.value === agent ? 'the agent id' : group.value,
    )
  },

  async 'no-calls-groups-null'(api) {
    await freshKey(api)
    const empty = await api.call('GET', '/v1/analytics/calls?group_by=channel')
    return { status: empty.status, calls: empty.body.totals?.call_count, groups: empty.body.groups }
  },

  async 'local-bucket-bounds-with-offset'(api) {
    await freshKey(api)
    const stats = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=day&timezone=Europe/Berlin&start=2026-03-07T23:00:00Z&end=2026-03-09T23:00:00Z',
    )
    return {
      status: stats.status,
      buckets: stats.body.series.map((bucket: { start: string; end: string }) => [bucket.start, bucket.end]),
    }
  },

  async 'impossible-date-rolled-over'(api) {
    await freshKey(api)
    const stats = await api.call(
      'GET',
      '/v1/analytics/calls?start=2026-02-30T00:00:00Z&end=2026-03-05T00:00:00Z',
    )
    return {
      status: stats.status,
      code: errorCode(stats),
      param: errorParam(stats),
      start: stats.body.start ?? null,
    }
  },

  // --------------------------------------------------------------------------------------- integrations
  async 'credentials-echoed-in-update'(api) {
    await freshKey(api)
    const patched = await api.call('PATCH', '/v1/integrations/slack', { credentials: SLACK_TOKEN })
    return { status: patched.status, fields: Object.keys(patched.body).sort() }
  },

  async 'disconnect-keeps-connected-at'(api) {
    await freshKey(api)
    await api.call('PATCH', '/v1/integrations/slack', { credentials: SLACK_TOKEN })
    await api.advance(100)
    const off = await api.call('PATCH', '/v1/integrations/slack', { credentials: null })
    const read = await api.call('GET', '/v1/integrations/slack')
    return {
      off: [off.body.status, off.body.connected_at],
      read: [read.body.status, read.body.connected_at],
    }
  },

  async 'enable-requires-connection'(api) {
    await freshKey(api)
    const enabled = await api.call('PATCH', '/v1/integrations/hubspot', { enabled: true })
    const read = await api.call('GET', '/v1/integrations/hubspot')
    return {
      enabled: [enabled.status, errorCode(enabled), enabled.body.enabled ?? null],
      read: [read.body.status, read.body.enabled],
    }
  },

  async 'credential-hint-first-four'(api) {
    await freshKey(api)
    const patched = await api.call('PATCH', '/v1/integrations/slack', { credentials: SLACK_TOKEN })
    const read = await api.call('GET', '/v1/integrations/slack')
    const list = await api.call('GET', '/v1/integrations')
    const listed = list.body.data.find((i: { id: string }) => i.id === 'slack')
    return [patched.body.credential_hint, read.body.credential_hint, listed.credential_hint]
  },

  // --------------------------------------------------------------------------------------- team members
  async 'name-guessed-from-email'(api) {
    await freshKey(api)
    const invited = await api.call('POST', '/v1/team-members', { email: 'priya.nair@live.test' })
    const read = await api.call('GET', `/v1/team-members/${invited.body.id}`)
    return { invited: [invited.status, invited.body.name], read: read.body.name }
  },

  async 'same-role-update-refused'(api) {
    await freshKey(api)
    const invited = await api.call('POST', '/v1/team-members', { email: 'ana@live.test', role: 'editor' })
    const same = await api.call('PATCH', `/v1/team-members/${invited.body.id}`, { role: 'editor' })
    const other = await api.call('PATCH', `/v1/team-members/${invited.body.id}`, { role: 'admin' })
    return {
      same: [same.status, errorCode(same), same.body.role ?? null],
      other: [other.status, other.body.role],
    }
  },

  async 'owner-removal-forbidden'(api) {
    await freshKey(api)
    const team = await api.call('GET', '/v1/team-members')
    const owner = team.body.data.find((member: { role: string }) => member.role === 'owner')
    const removed = await api.call('DELETE', `/v1/team-members/${owner.id}`)
    return { status: removed.status, type: removed.body.error?.type ?? null, code: errorCode(removed) }
  },

  async 'invitation-withdrawal-not-found'(api) {
    await freshKey(api)
    const invited = await api.call('POST', '/v1/team-members', { email: 'bo@live.test' })
    const removed = await api.call('DELETE', `/v1/team-members/${invited.body.id}`)
    const team = await api.call('GET', '/v1/team-members')
    return { removed: [removed.status, errorCode(removed)], team: team.body.data.length }
  },

  // ---------------------------------------------------------------------------------- the user and keys
  async 'publishable-user-without-email'(api) {
    const account = await api.account()
    const web = await api.keyRecord(account, { type: 'publishable', name: 'web' })
    const user = await api.call('GET', '/v1/user', undefined, { key: web.value })
    return { status: user.status, fields: Object.keys(user.body).sort() }
  },

  async 'revoked-key-echoed-in-message'(api) {
    const account = await api.account()
    const doomed = await api.keyRecord(account)
    const before = await api.call('GET', '/v1/user', undefined, { key: doomed.value })
    await revoke(api, doomed.id)
    const after = await api.call('GET', '/v1/user', undefined, { key: doomed.value })
    return {
      before: before.status,
      after: [after.status, errorCode(after), String(after.body.error?.message).includes(doomed.value)],
    }
  },

  // -------------------------------------------------------------------------------------------- headers
  async 'preflight-without-request-id'(api) {
    const preflight = await api.call('OPTIONS', '/v1/agents', undefined, {
      key: '',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    })
    return { status: preflight.status, request_id: /^req_/.test(preflight.headers['request-id'] ?? '') }
  },

  async 'allow-lists-every-method'(api) {
    await freshKey(api)
    const user = await api.call('PUT', '/v1/user', { name: 'x' })
    const agents = await api.call('PUT', '/v1/agents', { name: 'x' })
    return {
      user: [user.status, user.headers.allow ?? null],
      agents: [agents.status, agents.headers.allow ?? null],
    }
  },

  async 'idempotent-replayed-false-on-first'(api) {
    await freshKey(api)
    const send = () =>
      api.call('POST', '/v1/agents', agentBody('once'), { headers: { 'idempotency-key': 'create-once-1' } })
    const first = await send()
    const retry = await send()
    return {
      first: [first.status, first.headers['idempotent-replayed'] ?? null],
      retry: [retry.status, retry.headers['idempotent-replayed'] ?? null],
    }
  },

  async 'location-from-request-path'(api) {
    await freshKey(api)
    const agent = await api.call('POST', '/v1/agents/', agentBody('slash'))
    const member = await api.call('POST', '/v1/team-members/', { email: 'slash@live.test' })
    const where = (answer: Answer) =>
      (answer.headers.location ?? '')
        .replace(/(agt|mem)_[A-Za-z0-9]+/, '$1_*')
        .replace('http://live.test', '')
    return { agent: [agent.status, where(agent)], member: [member.status, where(member)] }
  },

  // --------------------------------------------------------------------------------------------- errors
  async 'missing-content-type-parsed'(api) {
    await freshKey(api)
    const created = await api.call('POST', '/v1/agents', undefined, {
      raw: JSON.stringify(agentBody('no-type')),
      headers: { 'content-type': undefined as unknown as string },
    })
    const list = await api.call('GET', '/v1/agents')
    return { created: [created.status, errorCode(created)], agents: list.body.data.length }
  },

  async 'oversized-body-media-type-first'(api) {
    await freshKey(api)
    const upload = await api.call('POST', '/v1/agents', undefined, {
      raw: 'a'.repeat(1024 * 1024 + 16),
      headers: { 'content-type': 'text/plain' },
    })
    return { status: upload.status, code: errorCode(upload) }
  },

  async 'not-found-param-named-id'(api) {
    await freshKey(api)
    const member = await api.call('GET', '/v1/team-members/mem_0000000000000000')
    const call = await api.call('GET', '/v1/call-logs/call_0000000000000000')
    return {
      member: [member.status, errorCode(member), errorParam(member)],
      call: [call.status, errorCode(call), errorParam(call)],
    }
  },

  async 'validation-param-json-pointer'(api) {
    await freshKey(api)
    const refused = await api.call('POST', '/v1/agents', {
      ...agentBody(''),
      voice: { provider: 'openai', voice_id: 'alloy', speed: 9 },
      webhook_events: ['call.ended', 'call.nope'],
    })
    return {
      status: refused.status,
      param: errorParam(refused),
      params: (refused.body.error?.errors ?? []).map((entry: { param: string }) => entry.param).sort(),
    }
  },
}

await showLive(faults, scenarios)
