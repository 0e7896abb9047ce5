// @ts-check
import { formatTime, h, replace, timeElement } from './dom.js'
import { createWebhookSecretBox } from './webhook-secret-box.js'

const OUTCOMES = ['completed', 'no_answer', 'busy', 'failed', 'canceled']
const LIVE = new Set(['queued', 'ringing', 'in_progress'])
/** While a call is under way or a delivery pending, the panel reloads this often (ms). */
const POLL_MS = 1000

/**
 * "Calls and webhooks": start a simulated call for one of the account's agents, watch it ring, talk and end,
 * and see every webhook delivery with each attempt (status, time taken, error), redelivering any of them.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createCallsPanel(ctx) {
  const agentSelect = h('select', { id: 'vak-call-agent', required: true })
  const outcomeSelect = h(
    'select',
    { id: 'vak-call-outcome' },
    OUTCOMES.map((o) => h('option', { value: o }, o.replace('_', ' '))),
  )
  const ring = h('input', {
    id: 'vak-call-ring',
    type: 'number',
    min: '0',
    max: '600',
    step: 'any',
    value: '4',
  })
  const talk = h('input', {
    id: 'vak-call-duration',
    type: 'number',
    min: '0',
    max: '14400',
    step: 'any',
    value: '60',
  })
  const agentHint = h('p', { class: 'vak-hint', id: 'vak-call-agent-hint' })
  const callsBody = h('tbody')
  const deliveriesBody = h('tbody')
  const secret = createWebhookSecretBox(ctx)
  /** @type {any[]} */
  let agents = []
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  /** @type {Promise<void> | undefined} */
  let loading

  const account = () => encodeURIComponent(ctx.state.accountId)

  function describeAgent() {
    const agent = agents.find((a) => a.id === agentSelect.value)
    if (!agent) agentHint.textContent = ''
    else if (!agent.webhook_url)
      agentHint.textContent =
        'This agent has no webhook_url: its events reach no receiver (set one with PATCH /v1/agents/{agent_id}).'
    else
      agentHint.textContent = `Webhooks go to ${agent.webhook_url} for ${agent.webhook_events.length ? agent.webhook_events.join(', ') : 'no event'}.`
  }
  agentSelect.addEventListener('change', describeAgent)

  /** @param {any} log */
  function callRow(log) {
    const agent = agents.find((a) => a.id === log.agent_id)
    const live = LIVE.has(log.status)
    return h(
      'tr',
      { 'data-call': log.id, 'data-status': log.status },
      h('td', {}, h('code', { class: 'vak-sub' }, log.id)),
      h('td', {}, agent?.name ?? log.agent_id),
      h(
        'td',
        {},
        h(
          'span',
          { class: `vak-badge ${live ? 'vak-badge-warning' : 'vak-badge-ok'}` },
          log.status.replace('_', ' '),
        ),
      ),
      h('td', {}, timeElement(log.started_at, ctx.now())),
      h('td', {}, log.duration_seconds === null ? '—' : `${log.duration_seconds} s`),
      h('td', {}, log.cost_usd === null ? '—' : `$${log.cost_usd}`),
      h('td', {}, log.analysis ? log.analysis.sentiment : log.status === 'completed' ? 'pending' : '—'),
    )
  }

  /** @param {any} delivery */
  function deliveryRow(delivery) {
    const tone =
      delivery.status === 'succeeded'
        ? 'vak-badge-ok'
        : delivery.status === 'failed'
          ? 'vak-badge-danger'
          : 'vak-badge-warning'
    const attempts = delivery.attempts.map((/** @type {any} */ a) =>
      h(
        'li',
        {},
        `#${a.number} ${formatTime(a.at)}: `,
        a.status_code === null ? 'no answer' : String(a.status_code),
        a.duration_ms === null ? '' : ` in ${Math.round(a.duration_ms)} ms`,
        a.error ? h('span', { class: 'vak-muted' }, ` (${a.error})`) : '',
      ),
    )
    return h(
      'tr',
      { 'data-delivery': delivery.id, 'data-event': delivery.event_type, 'data-status': delivery.status },
      h('td', {}, h('code', {}, delivery.event_type)),
      h('td', {}, h('code', { class: 'vak-sub' }, delivery.call_id)),
      h('td', {}, h('span', { class: `vak-badge ${tone}` }, delivery.status)),
      h(
        'td',
        {},
        attempts.length
          ? h('ol', { class: 'vak-attempts' }, attempts)
          : h('span', { class: 'vak-muted' }, 'none yet'),
      ),
      h('td', {}, delivery.next_attempt_at ? timeElement(delivery.next_attempt_at, ctx.now()) : '—'),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'vak-button vak-small',
            'aria-label': `Redeliver ${delivery.event_type} of ${delivery.call_id}`,
            onclick: () => redeliver(delivery.id),
          },
          'Redeliver',
        ),
      ),
    )
  }

  /**
   * Loads agents, calls, deliveries and whether there is a signing secret; while a call is under way or a
   * delivery pending, reloads the calls and deliveries every second (the secret changes only when someone
   * changes it: this panel, which reloads it then, or a reset, which reloads everything).
   * @param {{ secret?: boolean }} [what]
   */
  function load({ secret: withSecret = true } = {}) {
    loading ??= (async () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      if (!ctx.state.accountId) return
      const [agentList, calls, deliveries] = await Promise.all([
        ctx.api.request('GET', `/accounts/${account()}/agents`),
        ctx.api.request('GET', `/accounts/${account()}/calls?limit=10`),
        ctx.api.request('GET', `/accounts/${account()}/webhook-deliveries?limit=50`),
        withSecret ? secret.load() : undefined,
      ])
      if (agentList.data) {
        const selected = agentSelect.value
        agents = agentList.data.data
        replace(
          agentSelect,
          agents.map((a) =>
            h(
              'option',
              { value: a.id, selected: a.id === selected },
              `${a.name}${a.status === 'active' ? '' : ' (inactive)'}`,
            ),
          ),
        )
        describeAgent()
      }
      const callLogs = calls.data?.data ?? []
      const sent = deliveries.data?.data ?? []
      replace(callsBody, callLogs.length ? callLogs.map(callRow) : emptyRow(7, 'No calls yet.'))
      replace(deliveriesBody, sent.length ? sent.map(deliveryRow) : emptyRow(6, 'No webhook deliveries yet.'))
      const busy =
        callLogs.some(
          (/** @type {any} */ c) => LIVE.has(c.status) || (c.status === 'completed' && !c.analysis),
        ) || sent.some((/** @type {any} */ d) => d.status === 'pending')
      if (busy) timer = setTimeout(() => load({ secret: false }), POLL_MS)
    })().finally(() => {
      loading = undefined
    })
    return loading
  }

  /** @param {number} columns @param {string} text */
  const emptyRow = (columns, text) => h('tr', {}, h('td', { colSpan: columns, class: 'vak-empty' }, text))

  /** @param {string} id */
  async function redeliver(id) {
    const result = await ctx.api.request('POST', `/webhook-deliveries/${encodeURIComponent(id)}/redeliver`)
    if (result.error) ctx.announce(`Could not redeliver: ${result.error.message}`, 'error')
    else ctx.announce(`${result.data.event_type} will be sent again.`)
    await load()
  }

  async function start(/** @type {SubmitEvent} */ event) {
    event.preventDefault()
    const body = {
      agent_id: agentSelect.value,
      outcome: outcomeSelect.value,
      ring_seconds: Number(ring.value || 0),
      duration_seconds: Number(talk.value || 0),
    }
    const result = await ctx.api.request('POST', `/accounts/${account()}/calls`, body)
    if (result.error) {
      const detail = result.error.errors.map((e) => e.message).join(' ')
      ctx.announce(`Could not start the call: ${detail || result.error.message}`, 'error')
      return
    }
    ctx.announce(`Call ${result.data.id} queued: it rings in a second.`)
    await load()
  }

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-calls-title', id: 'vak-calls' },
    h('h2', { id: 'vak-calls-title' }, 'Calls and webhooks'),
    h(
      'p',
      { class: 'vak-hint' },
      'Start a simulated call: it rings, connects, talks and ends on the mock clock (real time, or faster with the clock). Its events go to the agent’s webhook_url, signed with the account’s secret.',
    ),
    h(
      'form',
      { id: 'vak-call-form', onsubmit: start },
      h(
        'div',
        { class: 'vak-field-row' },
        h('div', { class: 'vak-field' }, h('label', { for: agentSelect.id }, 'Agent'), agentSelect),
        h('div', { class: 'vak-field' }, h('label', { for: outcomeSelect.id }, 'Outcome'), outcomeSelect),
        h('div', { class: 'vak-field vak-field-narrow' }, h('label', { for: ring.id }, 'Rings (s)'), ring),
        h('div', { class: 'vak-field vak-field-narrow' }, h('label', { for: talk.id }, 'Talks (s)'), talk),
      ),
      agentHint,
      h('button', { type: 'submit', class: 'vak-button vak-primary-button' }, 'Start call'),
    ),
    secret.element,
    h('h3', { id: 'vak-calls-list-title' }, 'Recent calls'),
    table(
      'vak-call-list',
      'vak-calls-list-title',
      'The account’s newest calls',
      ['Call', 'Agent', 'Status', 'Started', 'Duration', 'Cost', 'Analysis'],
      callsBody,
    ),
    h('h3', { id: 'vak-deliveries-title' }, 'Webhook deliveries'),
    table(
      'vak-deliveries',
      'vak-deliveries-title',
      'Webhook deliveries, newest first, with every attempt',
      ['Event', 'Call', 'Status', 'Attempts', 'Next attempt', ''],
      deliveriesBody,
    ),
  )

  ctx.on('keys', () => void load())
  ctx.on('clock', () => void load())
  return { element, load }
}

/**
 * @param {string} id @param {string} labelledBy @param {string} caption
 * @param {string[]} columns @param {HTMLTableSectionElement} body
 */
function table(id, labelledBy, caption, columns, body) {
  return h(
    'div',
    { class: 'vak-table-wrap', role: 'region', 'aria-labelledby': labelledBy, tabindex: '0' },
    h(
      'table',
      { class: 'vak-table', id },
      h('caption', { class: 'vak-visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((label) =>
            h('th', { scope: 'col' }, label || h('span', { class: 'vak-visually-hidden' }, 'Actions')),
          ),
        ),
      ),
      body,
    ),
  )
}
