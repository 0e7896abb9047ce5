// @ts-check
import { h, replace } from './dom.js'

/** What each status means, for the picker. */
const STATUS_NAMES = /** @type {Record<number, string>} */ ({
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Validation failed',
  429: 'Rate limited',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
})

/**
 * A scenario's effects in words: `500 Internal error`, `reset`, `delay 400 ms (lognormal, sigma 0.5)`.
 * @param {any} scenario
 */
export function effectSummary(scenario) {
  const parts = []
  if (scenario.status !== null) parts.push(`${scenario.status} ${STATUS_NAMES[scenario.status] ?? ''}`.trim())
  if (scenario.network_error === 'reset') parts.push('connection reset')
  if (scenario.network_error === 'timeout') parts.push('no answer (timeout)')
  const delay = scenario.delay
  if (delay?.type === 'fixed') parts.push(`delay ${delay.ms} ms`)
  if (delay?.type === 'uniform') parts.push(`delay ${delay.min_ms}-${delay.max_ms} ms (uniform)`)
  if (delay?.type === 'lognormal')
    parts.push(`delay ~${delay.median_ms} ms (lognormal, sigma ${delay.sigma})`)
  return parts.join(', ')
}

/**
 * A number field with its label, for the delay's parameters.
 * @param {string} id
 * @param {string} label
 * @param {Record<string, unknown>} props
 */
function numberField(id, label, props) {
  const input = h('input', { id, type: 'number', inputMode: 'decimal', ...props })
  return { input, field: h('div', { class: 'vak-field' }, h('label', { for: id }, label), input) }
}

/**
 * The Scenarios panel: pick an operation and an effect (an error status, a network failure, a delay), see the
 * active scenarios with their remaining uses, remove them. Driven by `/_mock/scenarios` and `/_mock/operations`.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createScenariosPanel(ctx) {
  /** @type {any[]} */
  let operations = []
  const errors = h('div', {
    class: 'vak-errors',
    id: 'vak-scn-errors',
    role: 'alert',
    tabindex: '-1',
    hidden: true,
  })
  const operation = h('select', { id: 'vak-scn-operation', name: 'operation' })
  const outcome = h('select', {
    id: 'vak-scn-outcome',
    name: 'outcome',
    'aria-describedby': 'vak-scn-outcome-hint',
  })
  const delayKind = h(
    'select',
    { id: 'vak-scn-delay', name: 'delay' },
    h('option', { value: '' }, 'None'),
    h('option', { value: 'fixed' }, 'Fixed'),
    h('option', { value: 'uniform' }, 'Uniform (between two values)'),
    h('option', { value: 'lognormal' }, 'Lognormal (around a median)'),
  )
  const ms = numberField('vak-scn-ms', 'Delay (ms)', { min: '0', max: '30000', step: 'any', value: '2000' })
  const minMs = numberField('vak-scn-min', 'From (ms)', { min: '0', max: '30000', step: 'any', value: '500' })
  const maxMs = numberField('vak-scn-max', 'To (ms)', { min: '0', max: '30000', step: 'any', value: '3000' })
  const median = numberField('vak-scn-median', 'Median (ms)', {
    min: '0',
    max: '30000',
    step: 'any',
    value: '800',
  })
  const sigma = numberField('vak-scn-sigma', 'Spread (sigma)', {
    min: '0',
    max: '3',
    step: 'any',
    value: '0.5',
  })
  const times = numberField('vak-scn-times', 'Times (empty: until removed)', { min: '1', step: '1' })
  const probability = numberField('vak-scn-probability', 'Probability (0-1)', {
    min: '0',
    max: '1',
    step: 'any',
    value: '1',
  })
  const onlyAccount = h('input', { id: 'vak-scn-account', type: 'checkbox' })
  const delayFields = /** @type {Record<string, HTMLElement[]>} */ ({
    '': [],
    fixed: [ms.field],
    uniform: [minMs.field, maxMs.field],
    lognormal: [median.field, sigma.field],
  })
  const delayRow = h('div', { class: 'vak-field-row' })

  function renderDelayFields() {
    replace(delayRow, delayFields[delayKind.value] ?? [])
  }
  delayKind.addEventListener('change', renderDelayFields)

  function renderOutcomes() {
    const chosen = operations.find((o) => o.operation_id === operation.value)
    const statuses = chosen ? chosen.scenario_statuses : everyOperationStatuses()
    const previous = outcome.value
    replace(
      outcome,
      h('option', { value: '' }, 'The real answer (with the delay below)'),
      h(
        'optgroup',
        { label: 'An error status' },
        statuses.map((/** @type {number} */ s) =>
          h('option', { value: String(s) }, `${s} ${STATUS_NAMES[s] ?? ''}`),
        ),
      ),
      h(
        'optgroup',
        { label: 'A network failure' },
        h('option', { value: 'reset' }, 'Connection reset (the request fails)'),
        h('option', { value: 'timeout' }, 'No answer (until the client gives up)'),
      ),
    )
    outcome.value = [...outcome.options].some((o) => o.value === previous) ? previous : '500'
  }

  /** The statuses every operation may take (a scenario for `*`). */
  function everyOperationStatuses() {
    const [first, ...rest] = operations.map((o) => /** @type {number[]} */ (o.scenario_statuses))
    return (first ?? [500, 502, 503, 504]).filter((s) => rest.every((list) => list.includes(s)))
  }
  operation.addEventListener('change', renderOutcomes)

  /** @param {string} text */
  const number = (text) => (text.trim() === '' ? undefined : Number(text))

  /** The scenario the form describes. */
  function input() {
    /** @type {Record<string, unknown>} */
    const scenario = { operation: operation.value }
    if (/^\d{3}$/.test(outcome.value)) scenario.status = Number(outcome.value)
    else if (outcome.value) scenario.network_error = outcome.value
    if (delayKind.value === 'fixed') scenario.delay = { type: 'fixed', ms: number(ms.input.value) }
    if (delayKind.value === 'uniform')
      scenario.delay = {
        type: 'uniform',
        min_ms: number(minMs.input.value),
        max_ms: number(maxMs.input.value),
      }
    if (delayKind.value === 'lognormal')
      scenario.delay = {
        type: 'lognormal',
        median_ms: number(median.input.value),
        sigma: number(sigma.input.value),
      }
    const count = number(times.input.value)
    if (count !== undefined) scenario.times = count
    const chance = number(probability.input.value)
    if (chance !== undefined && chance !== 1) scenario.probability = chance
    if (onlyAccount.checked && ctx.state.accountId) scenario.account_id = ctx.state.accountId
    return scenario
  }

  /** @param {{ param?: string, message: string }[]} list */
  function showErrors(list) {
    if (list.length === 0) {
      errors.hidden = true
      replace(errors)
      return
    }
    replace(
      errors,
      h('p', {}, 'The scenario was not added:'),
      h(
        'ul',
        {},
        list.map((e) => h('li', {}, e.param ? `${e.param}: ${e.message}` : e.message)),
      ),
    )
    errors.hidden = false
    errors.focus()
  }

  const form = h(
    'form',
    {
      class: 'vak-form',
      id: 'vak-scn-form',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault()
        const result = await ctx.api.createScenario(input())
        if (result.error) {
          showErrors(result.error.errors.length ? result.error.errors : [{ message: result.error.message }])
          return
        }
        showErrors([])
        await ctx.refresh('scenarios')
        ctx.announce(`Scenario added: ${result.data.operation} now gets ${effectSummary(result.data)}.`)
      },
    },
    errors,
    h(
      'div',
      { class: 'vak-field-row' },
      h('div', { class: 'vak-field' }, h('label', { for: operation.id }, 'Operation'), operation),
      h('div', { class: 'vak-field' }, h('label', { for: outcome.id }, 'Answer with'), outcome),
    ),
    h(
      'p',
      { class: 'vak-hint', id: 'vak-scn-outcome-hint' },
      'An error status or a network failure replaces the answer: the operation does not run, nothing changes.',
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Delay'),
      h('div', { class: 'vak-field vak-field-narrow' }, h('label', { for: delayKind.id }, 'Kind'), delayKind),
      delayRow,
    ),
    h('div', { class: 'vak-field-row' }, times.field, probability.field),
    h(
      'div',
      { class: 'vak-check' },
      onlyAccount,
      h('label', { for: onlyAccount.id }, 'Only for the selected account'),
    ),
    h(
      'div',
      { class: 'vak-actions' },
      h('button', { type: 'submit', class: 'vak-button vak-primary-button' }, 'Add scenario'),
    ),
  )

  const body = h('tbody')
  const summary = h('p', { class: 'vak-hint', id: 'vak-scn-summary' })
  const clearAll = h(
    'button',
    {
      type: 'button',
      class: 'vak-button vak-small',
      onclick: async () => {
        const result = await ctx.api.clearScenarios()
        if (result.error)
          return ctx.announce(`Could not remove the scenarios: ${result.error.message}`, 'error')
        await ctx.refresh('scenarios')
        ctx.announce(`Removed ${result.data.deleted} scenario${result.data.deleted === 1 ? '' : 's'}.`)
      },
    },
    'Remove all',
  )

  /** @param {any} scenario */
  async function remove(scenario) {
    const result = await ctx.api.deleteScenario(scenario.id)
    if (result.error && result.error.status !== 404)
      return ctx.announce(`Could not remove the scenario: ${result.error.message}`, 'error')
    await ctx.refresh('scenarios')
    ctx.announce(`Scenario removed: ${scenario.operation} gets its real answers again.`)
    form.querySelector('select')?.focus()
  }

  /** @param {any} scenario */
  function scope(scenario) {
    if (scenario.key_id) return `key ${scenario.key_id}`
    if (!scenario.account_id) return 'every account'
    return ctx.state.accounts.find((a) => a.id === scenario.account_id)?.name ?? scenario.account_id
  }

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-scn-title', id: 'vak-scenarios-panel' },
    h(
      'div',
      { class: 'vak-card-head' },
      h('h2', { id: 'vak-scn-title' }, 'Scenarios'),
      h(
        'button',
        {
          type: 'button',
          class: 'vak-button vak-small',
          onclick: () => ctx.refresh('scenarios').then(() => ctx.announce('Scenarios refreshed.')),
        },
        'Refresh',
      ),
    ),
    h(
      'p',
      { class: 'vak-hint' },
      'Make the API fail, slow down or drop connections, to see how your app copes. Answers a scenario touched carry the header Mock-Scenario.',
    ),
    form,
    h('h3', {}, 'Active scenarios'),
    summary,
    h(
      'div',
      { class: 'vak-table-wrap', role: 'region', 'aria-labelledby': 'vak-scn-title', tabindex: '0' },
      h(
        'table',
        { class: 'vak-table', id: 'vak-scenarios', 'aria-describedby': 'vak-scn-summary' },
        h(
          'caption',
          { class: 'vak-visually-hidden' },
          'Active scenarios, newest first (tried in this order)',
        ),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Operation', 'Effect', 'For', 'Remaining uses', 'Probability', 'Actions'].map((label) =>
              h('th', { scope: 'col' }, label),
            ),
          ),
        ),
        body,
      ),
    ),
    h('div', { class: 'vak-actions' }, clearAll),
  )

  ctx.on('scenarios', () => {
    const scenarios = ctx.state.scenarios
    summary.textContent =
      scenarios.length === 0
        ? 'No scenario: every request gets its real answer.'
        : `${scenarios.length} active, newest first (the first that matches a request applies).`
    clearAll.disabled = scenarios.length === 0
    replace(
      body,
      scenarios.map((s) =>
        h(
          'tr',
          { 'data-scenario-id': s.id },
          h('th', { scope: 'row' }, h('code', {}, s.operation === '*' ? 'every operation' : s.operation)),
          h('td', {}, effectSummary(s)),
          h('td', {}, scope(s)),
          h('td', {}, s.remaining === null ? 'until removed' : `${s.remaining} of ${s.times}`),
          h('td', {}, s.probability === 1 ? 'always' : String(s.probability)),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'vak-button vak-small',
                'aria-label': `Remove scenario ${s.operation} ${effectSummary(s)}`,
                onclick: () => remove(s),
              },
              'Remove',
            ),
          ),
        ),
      ),
    )
  })

  /** Loads the operations once; the form is usable from then on. */
  async function loadOperations() {
    const result = await ctx.api.listOperations()
    if (result.error) return
    operations = result.data.data
    replace(
      operation,
      h('option', { value: '*' }, 'Every operation (*)'),
      operations.map((o) =>
        h('option', { value: o.operation_id }, `${o.operation_id} · ${o.method} /v1${o.path}`),
      ),
    )
    operation.value = 'listAgents'
    renderOutcomes()
  }
  renderDelayFields()
  const ready = loadOperations()
  return { element, ready }
}
