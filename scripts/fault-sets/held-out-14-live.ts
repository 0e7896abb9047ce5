/**
 * Shows that every fault of held-out fault set 14 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 writes sent as a client sends them,
 * and the reads, lists and later writes that show what a write did, the mock clock moved where time matters) is run
 * against a fresh correct engine, again against another fresh correct engine (the scenario must observe the same thing
 * twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its
 * observation differs from the correct one. Ordinary traffic (the first reads of every endpoint, a create and a read)
 * is also run through each fault, which should leave it unchanged. The engines' clocks are frozen at one instant and
 * move only when a scenario advances them, so that every run sees the same times
 * (`node --import tsx scripts/fault-sets/held-out-14-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-14.ts'
import {
  type Answer,
  type Api,
  agentBody,
  completedCall,
  freshKey,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** A new agent's whole answer. */
async function created(api: Api, name: string, extra: Record<string, unknown> = {}): Promise<Answer> {
  return api.call('POST', '/v1/agents', agentBody(name, extra))
}

const entries = (answer: Answer) =>
  (answer.body?.error?.errors ?? []).map(
    (entry: { param: string; code: string }) => `${entry.param}:${entry.code}`,
  )
const emails = (answer: Answer) => (answer.body?.data ?? []).map((member: { email: string }) => member.email)

const connectSlack = (api: Api) =>
  api.call('PATCH', '/v1/integrations/slack', {
    credentials: { bot_token: 'xoxb-4821-1177-Zt9sQm2LwR8kPc7H' },
  })

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------- defaults
  async 'zero-temperature-defaulted-on-create'(api) {
    await freshKey(api)
    const made = await created(api, 'calm', { llm: { provider: 'openai', model: 'gpt-4o', temperature: 0 } })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return [made.status, made.body.llm?.temperature, read.body.llm?.temperature]
  },

  async 'create-overrides-status-to-active'(api) {
    await freshKey(api)
    const made = await created(api, 'later', { status: 'inactive' })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return [made.status, made.body.status, read.body.status]
  },

  async 'webhook-url-subscribes-every-event'(api) {
    await freshKey(api)
    const bare = await created(api, 'hooked', { webhook_url: 'https://hooks.live.test/events' })
    const chosen = await created(api, 'chosen', {
      webhook_url: 'https://hooks.live.test/events',
      webhook_events: ['call.ended'],
    })
    return [bare.body.webhook_events, chosen.body.webhook_events]
  },

  // ---------------------------------------------------------------------------------------------- nulls
  async 'blank-texts-stored-as-null'(api) {
    await freshKey(api)
    const made = await created(api, 'quiet', { description: '', first_message: '' })
    const other = await created(api, 'described', { description: 'front desk' })
    const patched = await api.call('PATCH', `/v1/agents/${other.body.id}`, { description: '' })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return {
      created: [made.body.description, made.body.first_message],
      read: [read.body.description, read.body.first_message],
      patched: [patched.status, patched.body.description],
    }
  },

  async 'null-reported-as-missing'(api) {
    await freshKey(api)
    const create = await api.call('POST', '/v1/agents', { ...agentBody('x'), name: null })
    const agent = await api.agent('a')
    const patch = await api.call('PATCH', `/v1/agents/${agent}`, { status: null, voice: { voice_id: null } })
    const invite = await api.call('POST', '/v1/team-members', { email: null })
    return [entries(create), entries(patch), entries(invite)]
  },

  async 'empty-credentials-disconnect'(api) {
    await freshKey(api)
    await connectSlack(api)
    const emptied = await api.call('PATCH', '/v1/integrations/slack', { credentials: {} })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [status(emptied), entries(emptied), read.body.status, read.body.credential_hint]
  },

  // ----------------------------------------------------------------------------------------- validation
  async 'validation-param-from-last-entry'(api) {
    await freshKey(api)
    const refused = await api.call('POST', '/v1/agents', {
      ...agentBody(''),
      voice: { provider: 'openai', voice_id: 'alloy', speed: 9 },
    })
    return [refused.status, refused.body.error?.param, entries(refused)]
  },

  async 'unknown-fields-reported-only-when-rest-valid'(api) {
    await freshKey(api)
    const both = await api.call('POST', '/v1/agents', { ...agentBody(''), max_call_duration: 600 })
    const nested = await api.call('POST', '/v1/agents', {
      ...agentBody('ok'),
      voice: { provider: 'openai', voice_id: 'alloy', pitch: 2, speed: 5 },
    })
    const alone = await api.call('POST', '/v1/agents', { ...agentBody('ok'), max_call_duration: 600 })
    return [entries(both), entries(nested), entries(alone)]
  },

  async 'non-object-json-body-answers-422'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const list = await api.call('POST', '/v1/agents', undefined, { raw: JSON.stringify([agentBody('a')]) })
    const text = await api.call('PATCH', '/v1/integrations/slack', undefined, { raw: '"on"' })
    const number = await api.call('POST', '/v1/team-members', undefined, { raw: '42' })
    const nothing = await api.call('PATCH', `/v1/agents/${agent}`, undefined, { raw: 'null' })
    return [list, text, number, nothing].map(status)
  },

  async 'empty-nested-update-accepted'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    await api.advance(10)
    const voice = await api.call('PATCH', `/v1/agents/${agent}`, { voice: {} })
    const llm = await api.call('PATCH', `/v1/agents/${agent}`, { llm: {}, name: 'renamed' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [
      status(voice),
      entries(voice),
      status(llm),
      read.body.name,
      seconds(read.body.created_at, read.body.updated_at),
    ]
  },

  // --------------------------------------------------------------------------------------------- bounds
  async 'language-tags-limited-to-language-region'(api) {
    await freshKey(api)
    const script = await created(api, 'tw', { language: 'zh-Hant-TW' })
    const region = await created(api, 'latam', { language: 'es-419' })
    const plain = await created(api, 'us', { language: 'en-US' })
    const patched = await api.call('PATCH', `/v1/agents/${plain.body.id}`, { language: 'yue' })
    return [script, region, plain, patched].map((answer) => [...status(answer), entries(answer)])
  },

  async 'max-tokens-capped-at-4096'(api) {
    await freshKey(api)
    const long = await created(api, 'long', {
      llm: { provider: 'openai', model: 'gpt-4o', max_tokens: 8192 },
    })
    const agent = await api.agent('a')
    const raised = await api.call('PATCH', `/v1/agents/${agent}`, { llm: { max_tokens: 16000 } })
    const edge = await api.call('PATCH', `/v1/agents/${agent}`, { llm: { max_tokens: 4096 } })
    return [long, raised, edge].map((answer) => [...status(answer), answer.body?.llm?.max_tokens ?? null])
  },

  async 'fractional-integers-rounded-by-database'(api) {
    await freshKey(api)
    const made = await created(api, 'half', { max_call_duration_seconds: 600.5 })
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { llm: { max_tokens: 99.4 } })
    return [
      [...status(made), made.body.max_call_duration_seconds ?? null, entries(made)],
      [...status(patched), patched.body.llm?.max_tokens ?? null, entries(patched)],
    ]
  },

  async 'webhook-url-any-scheme-accepted'(api) {
    await freshKey(api)
    const made = await created(api, 'ftp', { webhook_url: 'ftp://files.live.test/hook' })
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, {
      webhook_url: 'wss://stream.live.test/events',
    })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [[...status(made), made.body.webhook_url ?? null], status(patched), read.body.webhook_url]
  },

  async 'plus-addressed-emails-refused'(api) {
    await freshKey(api, { plan: 'pro', email: 'owner@live.test' })
    const invited = await api.call('POST', '/v1/team-members', {
      email: 'ops+alerts@live.test',
      role: 'editor',
    })
    const team = await api.call('GET', '/v1/team-members')
    return [status(invited), entries(invited), emails(team).sort()]
  },

  // --------------------------------------------------------------------------------------------- merges
  async 'webhook-events-added-never-removed'(api) {
    await freshKey(api)
    const agent = await api.agent('hooked', {
      webhook_url: 'https://hooks.live.test/events',
      webhook_events: ['call.started'],
    })
    const swapped = await api.call('PATCH', `/v1/agents/${agent}`, { webhook_events: ['call.ended'] })
    const cleared = await api.call('PATCH', `/v1/agents/${agent}`, { webhook_events: [] })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [swapped.body.webhook_events, cleared.body.webhook_events, read.body.webhook_events]
  },

  async 'nested-merge-answered-not-saved'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, {
      name: 'renamed',
      voice: { speed: 1.5 },
      llm: { model: 'gpt-4o' },
    })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    const listed = await api.call('GET', '/v1/agents')
    const view = (body: { name: string; voice: { speed: number }; llm: { model: string } }) => [
      body.name,
      body.voice.speed,
      body.llm.model,
    ]
    return [view(patched.body), view(read.body), view(listed.body.data[0])]
  },

  async 'update-written-over-cached-agent'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    await api.call('PATCH', `/v1/agents/${agent}`, { name: 'renamed' })
    const second = await api.call('PATCH', `/v1/agents/${agent}`, { status: 'inactive' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [
      [second.body.name, second.body.status],
      [read.body.name, read.body.status],
    ]
  },

  // ----------------------------------------------------------------------------------------- timestamps
  async 'update-timestamp-evaluated-once'(api) {
    await freshKey(api)
    const first = await api.agent('first')
    await api.call('PATCH', `/v1/agents/${first}`, { name: 'first, renamed' })
    await api.advance(120)
    const later = await api.agent('later')
    await api.advance(60)
    const patched = await api.call('PATCH', `/v1/agents/${later}`, { name: 'later, renamed' })
    const read = await api.call('GET', `/v1/agents/${later}`)
    return [
      seconds(patched.body.created_at, patched.body.updated_at),
      seconds(read.body.created_at, read.body.updated_at),
    ]
  },

  async 'member-created-at-bumped-by-role-change'(api) {
    await freshKey(api, { plan: 'pro', email: 'owner@live.test' })
    await api.advance(60)
    const first = await api.call('POST', '/v1/team-members', { email: 'first@live.test' })
    await api.advance(60)
    await api.call('POST', '/v1/team-members', { email: 'second@live.test' })
    await api.advance(60)
    const patched = await api.call('PATCH', `/v1/team-members/${first.body.id}`, { role: 'editor' })
    const read = await api.call('GET', `/v1/team-members/${first.body.id}`)
    const team = await api.call('GET', '/v1/team-members')
    return [
      seconds(patched.body.invited_at, patched.body.created_at),
      seconds(read.body.invited_at, read.body.created_at),
      emails(team),
    ]
  },

  async 'config-change-restamps-connected-at'(api) {
    await freshKey(api)
    await connectSlack(api)
    await api.advance(120)
    const patched = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#ops' } })
    await api.advance(30)
    const read = await api.call('GET', '/v1/integrations/slack')
    return [
      seconds(patched.body.connected_at, patched.body.updated_at),
      seconds(read.body.connected_at, read.body.updated_at),
    ]
  },

  // -------------------------------------------------------------------------------------------- answers
  async 'integration-update-answers-loaded-row'(api) {
    await freshKey(api)
    const patched = await api.call('PATCH', '/v1/integrations/slack', {
      enabled: true,
      config: { channel: '#a' },
    })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [
      [patched.status, patched.body.enabled, patched.body.config],
      [read.body.enabled, read.body.config],
    ]
  },

  async 'call-log-delete-answers-204'(api) {
    const account = await freshKey(api)
    const call = await completedCall(api, account, await api.agent('a'))
    const removed = await api.call('DELETE', `/v1/call-logs/${call}`)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [removed.status, removed.body?.deleted ?? null, removed.body?.object ?? null, read.status]
  },

  // -------------------------------------------------------------------------------------------- deletes
  async 'deleted-agent-still-patchable'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const removed = await api.call('DELETE', `/v1/agents/${agent}`)
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { name: 'back' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [removed.status, status(patched), read.status]
  },

  async 'agent-deletion-nulls-call-agent-id'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await completedCall(api, account, agent)
    await api.call('DELETE', `/v1/agents/${agent}`)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const filtered = await api.call('GET', `/v1/call-logs?agent_id=${agent}`)
    const listed = await api.call('GET', '/v1/call-logs')
    const label = (id: unknown) => (id === agent ? 'the agent' : id)
    return [label(read.body.agent_id), filtered.body.data.length, label(listed.body.data[0]?.agent_id)]
  },

  async 'deleted-call-log-kept-in-agent-index'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const first = await api.startCall(account, agent)
    await api.advance(1)
    await api.startCall(account, agent)
    await api.advance(70)
    await api.call('DELETE', `/v1/call-logs/${first}`)
    const filtered = await api.call('GET', `/v1/call-logs?agent_id=${agent}`)
    const listed = await api.call('GET', '/v1/call-logs')
    const read = await api.call('GET', `/v1/call-logs/${first}`)
    return [filtered.body.data.length, listed.body.data.length, read.status]
  },

  // ----------------------------------------------------------------------------------------- uniqueness
  async 'capitalised-duplicate-invite-accepted'(api) {
    await freshKey(api)
    await api.call('POST', '/v1/team-members', { email: 'lee@live.test' })
    const again = await api.call('POST', '/v1/team-members', { email: 'Lee@Live.Test' })
    const team = await api.call('GET', '/v1/team-members')
    return [status(again), again.body.error?.param ?? null, emails(team).length]
  },

  async 'active-member-email-reinvitable'(api) {
    await freshKey(api, { plan: 'pro', email: 'owner@live.test' })
    const owner = await api.call('POST', '/v1/team-members', { email: 'owner@live.test', role: 'admin' })
    const team = await api.call('GET', '/v1/team-members')
    return [status(owner), owner.body.error?.param ?? null, emails(team)]
  },

  // ---------------------------------------------------------------------------------------- idempotency
  async 'invitations-ignore-idempotency-key'(api) {
    await freshKey(api)
    const headers = { 'idempotency-key': 'invite-kim-1' }
    const first = await api.call('POST', '/v1/team-members', { email: 'kim@live.test' }, { headers })
    const retry = await api.call('POST', '/v1/team-members', { email: 'kim@live.test' }, { headers })
    const other = await api.call('POST', '/v1/team-members', { email: 'kai@live.test' }, { headers })
    const team = await api.call('GET', '/v1/team-members')
    return [
      status(first),
      [...status(retry), retry.headers['idempotent-replayed'] ?? null],
      status(other),
      emails(team).length,
    ]
  },

  // ---------------------------------------------------------------------------------------- permissions
  async 'member-item-routes-guarded-as-delete'(api) {
    const account = await api.account()
    await api.key(account, { permissions: ['team_members:write'] })
    const invited = await api.call('POST', '/v1/team-members', { email: 'ana@live.test' })
    const read = await api.call('GET', `/v1/team-members/${invited.body.id}`)
    const promoted = await api.call('PATCH', `/v1/team-members/${invited.body.id}`, { role: 'admin' })
    const team = await api.call('GET', '/v1/team-members')
    return [
      invited.status,
      [...status(read), read.body.error?.required_permission ?? null],
      [...status(promoted), promoted.body.role ?? null],
      team.status,
    ]
  },
}

await showLive(faults, scenarios)
