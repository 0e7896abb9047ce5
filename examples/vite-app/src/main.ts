import { type ApiResult, burstQuota, createApiClient } from './api-client.ts'
import { connect } from './connect.ts'
import { setUpLiveCall } from './live-call.ts'
import { el, showLoading, showStatus, table, when } from './render.ts'
import type { ActiveScenario } from './scenarios.ts'
import './app.css'

interface List<T> {
  data: T[]
  has_more: boolean
}
interface Agent {
  id: string
  name: string
  language: string
  status: string
  voice: { provider: string; voice_id: string }
}
interface CallLog {
  id: string
  agent_id: string
  direction: string
  status: string
  started_at: string | null
  duration_seconds: number | null
  cost_usd: number | null
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T

const target = await connect()
// Client-side code may hold a publishable key. The secret key is used here only because the mock runs in
// the page; in a real app the call-log request belongs on your server.
const publicApi = createApiClient(target.baseUrl, target.publishableKey)
const serverApi = createApiClient(target.baseUrl, target.secretKey)
const agentNames = new Map<string, string>()

$('mode').textContent = target.description
$<HTMLAnchorElement>('dashboard-link').href = target.dashboardUrl

async function loadAgents() {
  const out = $('agents')
  // Loading state: the table stays, dimmed, until the answer comes (a slow API shows it for long).
  showLoading($('agents-status'), out, 'Loading agents…')
  const result = await publicApi.get<List<Agent>>('/agents?limit=10')
  showStatus($('agents-status'), result, result.ok ? `${result.data.data.length} agents` : '')
  out.removeAttribute('aria-busy')
  // Error state: what went wrong, and a way to try again.
  if (!result.ok)
    return out.replaceChildren(
      el(
        'div',
        { class: 'error-state', role: 'alert' },
        el('p', {}, `The agents could not be loaded (${result.status || 'network error'}).`),
        el('button', { type: 'button', class: 'retry' }, 'Try again'),
      ),
    )
  for (const agent of result.data.data) agentNames.set(agent.id, agent.name)
  out.replaceChildren(
    table('Agents (publishable key)', ['Name', 'Language', 'Voice', 'Status'], result.data.data, (a) => [
      a.name,
      a.language,
      `${a.voice.provider} · ${a.voice.voice_id}`,
      a.status,
    ]),
  )
}

async function loadCallLogs() {
  const result = await serverApi.get<List<CallLog>>('/call-logs?limit=10')
  showStatus($('calls-status'), result, result.ok ? `${result.data.data.length} most recent calls` : '')
  const out = $('calls')
  if (!result.ok) return out.replaceChildren()
  out.replaceChildren(
    table(
      'Recent calls (secret key)',
      ['Started', 'Agent', 'Direction', 'Status', 'Duration', 'Cost'],
      result.data.data,
      (c) => [
        when(c.started_at),
        agentNames.get(c.agent_id) ?? c.agent_id,
        c.direction,
        c.status,
        c.duration_seconds === null ? '—' : `${c.duration_seconds} s`,
        c.cost_usd === null ? '—' : `$${c.cost_usd.toFixed(2)}`,
      ],
    ),
  )
}

/** Sends a little more than the plan's per-minute burst at once, and counts the answers by status. */
async function burst() {
  const button = $<HTMLButtonElement>('burst')
  button.disabled = true
  const probe = await publicApi.get('/user')
  const size = (burstQuota(probe.headers) ?? 50) + 5
  const results: ApiResult<unknown>[] = await Promise.all(
    Array.from({ length: size }, () => publicApi.get('/user')),
  )
  const counts = new Map<number, number>()
  for (const r of [probe, ...results]) counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
  const limited = results.find((r) => r.status === 429)
  const out = $('burst-result')
  out.dataset.statuses = [...counts.keys()].sort().join(',')
  out.replaceChildren(
    el('span', {}, `Sent ${size + 1} requests: `),
    ...[...counts].flatMap(([status, n]) => [
      el('span', { class: `count s${status}` }, `${n} × ${status}`),
      ' ',
    ]),
  )
  if (limited) out.append(` Retry-After: ${limited.headers.get('retry-after')} s`)
  button.disabled = false
}

$('agents-reload').addEventListener('click', loadAgents)
$('agents').addEventListener('click', (event) => {
  if ((event.target as HTMLElement).matches('button.retry')) loadAgents()
})

/** A toggle that keeps a scenario on while pressed, and reloads the agents either way. */
function scenarioToggle(id: string, input: Record<string, unknown>) {
  const button = $<HTMLButtonElement>(id)
  let active: ActiveScenario | undefined
  button.addEventListener('click', async () => {
    button.disabled = true
    if (active) {
      await active.remove()
      active = undefined
    } else active = await target.scenarios?.add(input)
    button.setAttribute('aria-pressed', String(active !== undefined))
    button.disabled = false
    await loadAgents()
  })
}
if (target.scenarios) {
  $('simulate').hidden = false
  scenarioToggle('agents-fail', { operation: 'listAgents', status: 500 })
  scenarioToggle('agents-slow', { operation: 'listAgents', delay: { type: 'fixed', ms: 2000 } })
}
$('calls-reload').addEventListener('click', loadCallLogs)
$('burst').addEventListener('click', burst)
const reset = $<HTMLButtonElement>('reset')
if (target.reset) {
  const startOver = target.reset
  reset.addEventListener('click', async () => {
    await startOver()
    await loadAgents()
    await loadCallLogs()
  })
} else reset.hidden = true

setUpLiveCall(
  target,
  serverApi,
  () => agentNames.keys().next().value,
  () => void loadCallLogs(),
)

await loadAgents()
await loadCallLogs()
document.body.dataset.ready = 'true'
