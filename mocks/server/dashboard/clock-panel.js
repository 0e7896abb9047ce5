// @ts-check
import { confirmDialog } from './confirm-dialog.js'
import { formatDuration, formatTime, h } from './dom.js'

const STEPS = [
  [60, '+1 minute'],
  [3600, '+1 hour'],
  [86_400, '+1 day'],
  [7_776_000, '+90 days'],
]

/**
 * The mock's clock (moved forward to slide rate-limit windows, expire keys, make rotations due) and the reset.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createClockPanel(ctx) {
  const now = h('p', { class: 'vak-clock-now', id: 'vak-clock-now' })
  const offset = h('p', { class: 'vak-hint' })
  const seconds = h('input', {
    id: 'vak-clock-seconds',
    type: 'number',
    min: '1',
    max: '31536000',
    step: 'any',
    inputMode: 'numeric',
  })

  /** @param {number} amount */
  async function advance(amount) {
    const result = await ctx.api.advanceClock(amount)
    if (result.error) {
      ctx.announce(`Could not move the clock: ${result.error.message}`, 'error')
      return
    }
    await ctx.refresh('clock', 'keys', 'usage', 'journal')
    ctx.announce(
      `Clock moved forward by ${formatDuration(amount)}: it is now ${formatTime(ctx.state.clock?.now)}.`,
    )
  }

  async function reset() {
    const confirmed = await confirmDialog({
      title: 'Reset the mock?',
      body: 'Every account, key and resource goes back to the seeded state: created keys are deleted, revoked ones restored, the journal, rate-limit windows and scenarios emptied and the clock set back.',
      confirmLabel: 'Reset the mock',
    })
    if (!confirmed) return
    const result = await ctx.api.reset()
    if (result.error) {
      ctx.announce(`Could not reset the mock: ${result.error.message}`, 'error')
      return
    }
    ctx.state.journalView.keyId = ''
    await ctx.refresh('accounts', 'clock')
    if (!ctx.account()) ctx.state.accountId = ctx.state.accounts[0]?.id ?? ''
    await ctx.refresh('accounts', 'keys', 'usage', 'journal', 'scenarios')
    ctx.announce('The mock is back in its seeded state.')
  }

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-clock-title' },
    h('h2', { id: 'vak-clock-title' }, 'Mock clock'),
    now,
    offset,
    h(
      'div',
      { class: 'vak-step-buttons', role: 'group', 'aria-label': 'Move the clock forward' },
      STEPS.map(([amount, label]) =>
        h(
          'button',
          { type: 'button', class: 'vak-button vak-small', onclick: () => advance(Number(amount)) },
          label,
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'vak-inline-form',
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault()
          const amount = Number(seconds.value)
          if (!(amount > 0)) {
            ctx.announce('Enter a number of seconds greater than 0.', 'error')
            seconds.focus()
            return
          }
          seconds.value = ''
          advance(amount)
        },
      },
      h('label', { for: seconds.id, class: 'vak-inline-label' }, 'Seconds'),
      seconds,
      h('button', { type: 'submit', class: 'vak-button vak-small' }, 'Advance'),
    ),
    h('h3', {}, 'Start over'),
    h('p', { class: 'vak-hint' }, 'Back to the seeded demo data, keys and clock.'),
    h('button', { type: 'button', class: 'vak-button vak-danger-button', onclick: reset }, 'Reset mock…'),
  )

  ctx.on('clock', () => {
    const clock = ctx.state.clock
    now.textContent = clock ? formatTime(clock.now) : '—'
    const ahead = clock?.offset_seconds ?? 0
    offset.textContent =
      ahead > 0
        ? `${formatDuration(ahead)} ahead of real time`
        : ahead < 0
          ? `${formatDuration(-ahead)} behind real time (set by a capsule)`
          : 'Following real time'
  })
  return { element }
}
