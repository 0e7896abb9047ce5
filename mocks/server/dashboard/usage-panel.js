// @ts-check
import { cardHead } from './card-head.js'
import { formatDuration, h, replace } from './dom.js'

const PLANS = [
  ['free', 'Free: 100 / hour, 10 / minute'],
  ['pro', 'Pro: 1,000 / hour, 50 / minute'],
  ['enterprise', 'Enterprise: custom (10,000 / hour, 500 / minute)'],
]

/**
 * Rate-limit usage per window and the plan switch.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createUsagePanel(ctx) {
  const windows = h('div', { class: 'vak-windows' })
  const plan = h(
    'select',
    { id: 'vak-plan' },
    PLANS.map(([value, label]) => h('option', { value }, label)),
  )
  const note = h('p', { class: 'vak-hint', id: 'vak-plan-note' })
  const apply = h('button', { type: 'submit', class: 'vak-button' }, 'Switch plan')

  const form = h(
    'form',
    {
      class: 'vak-form',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault()
        const account = ctx.account()
        if (!account || account.plan === plan.value) return
        apply.disabled = true
        const result = await ctx.api.updateAccount(account.id, { plan: plan.value })
        apply.disabled = false
        if (result.error) {
          ctx.announce(`Could not switch the plan: ${result.error.message}`, 'error')
          return
        }
        await ctx.refresh('accounts', 'usage')
        ctx.announce(
          `${account.name} is now on the ${plan.value} plan; the new limits apply from the next request.`,
        )
      },
    },
    h('div', { class: 'vak-field' }, h('label', { for: plan.id }, 'Plan'), plan),
    note,
    h('div', { class: 'vak-actions' }, apply),
  )

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-usage-title' },
    cardHead(ctx, h('h2', { id: 'vak-usage-title' }, 'Rate limits')),
    h(
      'p',
      { class: 'vak-hint' },
      'All keys of the account share these sliding windows; a request needs room in both.',
    ),
    windows,
    form,
  )

  ctx.on('usage', () => {
    const usage = ctx.state.usage
    replace(
      windows,
      (usage?.windows ?? []).map((w) => {
        const id = `vak-window-${w.policy}`
        const full = w.remaining === 0
        return h(
          'div',
          { class: 'vak-window', 'data-policy': w.policy },
          h(
            'div',
            { class: 'vak-window-head' },
            h(
              'span',
              { id, class: 'vak-window-name' },
              w.policy === 'hourly' ? 'Per hour' : 'Burst, per minute',
            ),
            h(
              'span',
              { class: full ? 'vak-badge vak-badge-danger' : 'vak-muted' },
              full ? 'Exhausted: 429' : `${w.remaining} left`,
            ),
          ),
          h('meter', {
            min: 0,
            max: w.limit,
            value: w.used,
            low: w.limit * 0.7,
            high: w.limit * 0.9,
            optimum: 0,
            'aria-labelledby': id,
          }),
          h(
            'p',
            { class: 'vak-window-numbers' },
            `${w.used} of ${w.limit} used`,
            w.used > 0 ? ` · frees up in ${formatDuration(w.reset_seconds)}` : '',
          ),
        )
      }),
    )
  })
  ctx.on('accounts', () => {
    const account = ctx.account()
    if (!account) return
    plan.value = account.plan
    note.textContent = account.custom_limits
      ? `Custom limits: ${account.limits.hourly} / hour, ${account.limits.burst} / minute (kept when the plan changes).`
      : `Current plan: ${account.plan}.`
  })
  return { element }
}
