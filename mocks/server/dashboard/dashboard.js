// @ts-check
/**
 * The mock's dashboard: the platform's "Settings, API Keys" page, simulated over the control plane.
 * Plain DOM, no build step. Served by the standalone mock at /_mock/dashboard, and mountable in a page
 * that runs the in-browser mock (`voice-api-kit/mocks/dashboard`).
 */
import { createCallsPanel } from './calls-panel.js'
import { createCapsulePanel } from './capsule-panel.js'
import { createClockPanel } from './clock-panel.js'
import { createControlApi } from './control-api.js'
import { createKeyForm } from './create-key-form.js'
import { h, replace } from './dom.js'
import { createJournalPanel } from './journal-panel.js'
import { createKeysTable } from './keys-table.js'
import { createRevealPanel } from './reveal-panel.js'
import { createScenariosPanel } from './scenarios-panel.js'
import { createUsagePanel } from './usage-panel.js'

/**
 * @typedef {'accounts' | 'keys' | 'clock' | 'usage' | 'journal' | 'scenarios'} Part
 * @typedef {object} DashboardState
 * @property {any[]} accounts every account of the mock
 * @property {string} accountId the account shown
 * @property {any[]} keys the shown account's keys (records only: never a value)
 * @property {{ now: string, offset_seconds: number } | undefined} clock
 * @property {{ windows: any[] } | undefined} usage
 * @property {any[]} journal the journal entries matching `journalView`
 * @property {{ keyId: string, status: string }} journalView
 * @property {any[]} scenarios the active scenarios, newest first
 * @typedef {object} DashboardContext
 * @property {import('./control-api.js').ControlApi} api
 * @property {DashboardState} state
 * @property {(message: string, tone?: 'info' | 'error') => void} announce
 * @property {(...parts: Part[]) => Promise<void>} refresh reloads parts of the state and re-renders them
 * @property {(part: Part, render: () => void) => void} on
 * @property {() => any} account the shown account
 * @property {() => string | undefined} now the mock's time now (its clock follows real time between reads)
 * @typedef {object} DashboardOptions
 * @property {string} [controlUrl] where the control plane answers (default `/_mock`)
 * @property {string} [docsUrl] a link to the API reference, if any
 * @property {{ href: string, label: string }} [backLink] a link back to the app, if any
 */

/**
 * Renders the dashboard into `root` and loads it.
 * @param {HTMLElement} root
 * @param {DashboardOptions} [options]
 */
export function mountDashboard(root, options = {}) {
  const api = createControlApi(options.controlUrl ?? '/_mock')
  /** @type {DashboardState} */
  const state = {
    accounts: [],
    accountId: '',
    keys: [],
    clock: undefined,
    usage: undefined,
    journal: [],
    journalView: { keyId: '', status: '4xx' },
    scenarios: [],
  }
  let clockReadAt = Date.now()
  /** @type {Map<Part, (() => void)[]>} */
  const listeners = new Map()
  const status = h('p', { class: 'vak-status', role: 'status', 'aria-live': 'polite' })

  /** @type {DashboardContext} */
  const ctx = {
    api,
    state,
    announce(message, tone = 'info') {
      status.dataset.tone = tone
      // Clear first so that the same message is announced again.
      status.textContent = ''
      requestAnimationFrame(() => {
        status.textContent = message
      })
    },
    on(part, render) {
      listeners.set(part, [...(listeners.get(part) ?? []), render])
    },
    account: () => state.accounts.find((a) => a.id === state.accountId),
    now() {
      if (!state.clock) return undefined
      const elapsed = Date.now() - clockReadAt
      return new Date(Date.parse(state.clock.now) + Math.max(0, elapsed)).toISOString()
    },
    async refresh(...parts) {
      const wanted = new Set(parts)
      const id = state.accountId
      /** @type {Promise<void>[]} */
      const loads = []
      /**
       * @param {Part} part
       * @param {() => Promise<import('./control-api.js').ControlResult>} loader
       * @param {(data: any) => void} apply
       */
      const load = (part, loader, apply) => {
        if (!wanted.has(part)) return
        loads.push(
          loader().then((result) => {
            if (result.error) throw result.error
            apply(result.data)
          }),
        )
      }
      load('accounts', api.listAccounts, (data) => {
        state.accounts = data.data
      })
      load('scenarios', api.listScenarios, (data) => {
        state.scenarios = data.data
      })
      load('clock', api.getClock, (data) => {
        state.clock = data
        clockReadAt = Date.now()
      })
      if (id) {
        load(
          'keys',
          () => api.listKeys(id),
          (data) => {
            state.keys = data.data
          },
        )
        load(
          'usage',
          () => api.rateLimit(id),
          (data) => {
            state.usage = data
          },
        )
        load(
          'journal',
          () =>
            api.journal({
              account_id: id,
              key_id: state.journalView.keyId || undefined,
              status: state.journalView.status || undefined,
              limit: 50,
            }),
          (data) => {
            state.journal = data.data
          },
        )
      }
      const results = await Promise.allSettled(loads)
      const failed = results.find((r) => r.status === 'rejected')
      // Keys and the clock change how the other panels read (names, "ago"), so they re-render everything.
      const all = wanted.has('keys') || wanted.has('clock') || wanted.has('accounts')
      for (const [part, renders] of listeners)
        if (all || wanted.has(part)) for (const render of renders) render()
      if (failed?.status === 'rejected') {
        const error = /** @type {import('./control-api.js').ControlError} */ (failed.reason)
        if (error.code === 'invalid_admin_token') showTokenPrompt()
        else ctx.announce(`Could not load the dashboard: ${error.message}`, 'error')
      }
    },
  }

  const reveal = createRevealPanel(ctx)
  const keysTable = createKeysTable(ctx)
  const form = createKeyForm(ctx, reveal)
  const journal = createJournalPanel(ctx)
  const usage = createUsagePanel(ctx)
  const clock = createClockPanel(ctx)
  const scenarios = createScenariosPanel(ctx)
  const calls = createCallsPanel(ctx)
  const capsule = createCapsulePanel(ctx)

  const picker = h('select', {
    id: 'vak-account',
    onchange: () => {
      state.accountId = picker.value
      state.journalView.keyId = ''
      reveal.dismiss(false)
      ctx
        .refresh('keys', 'usage', 'journal')
        .then(() => ctx.announce(`Showing ${ctx.account()?.name ?? 'the account'}.`))
    },
  })
  ctx.on('accounts', () => {
    replace(
      picker,
      state.accounts.map((a) =>
        h(
          'option',
          { value: a.id, selected: a.id === state.accountId },
          `${a.name} · ${a.email} (${a.plan})`,
        ),
      ),
    )
  })

  const main = h(
    'main',
    { id: 'vak-main', tabindex: '-1' },
    h(
      'div',
      { class: 'vak-title' },
      h('h1', {}, 'API keys'),
      h(
        'p',
        { class: 'vak-lead' },
        'Create keys for your apps, see each value once, revoke keys you no longer trust, and watch for failed requests after a rotation.',
      ),
    ),
    status,
    h(
      'div',
      { class: 'vak-grid' },
      h(
        'div',
        { class: 'vak-primary' },
        reveal.element,
        keysTable.element,
        form.element,
        journal.element,
        scenarios.element,
        calls.element,
      ),
      h('div', { class: 'vak-secondary' }, usage.element, clock.element, capsule.element),
    ),
  )

  const links = [
    options.backLink && h('a', { href: options.backLink.href }, options.backLink.label),
    options.docsUrl && h('a', { href: options.docsUrl }, 'API reference'),
  ]
  const header = h(
    'header',
    { class: 'vak-header' },
    h(
      'div',
      { class: 'vak-brand' },
      h('span', { class: 'vak-logo', 'aria-hidden': 'true' }, '◖'),
      h('span', {}, 'voice-api-kit mock'),
      h(
        'nav',
        { 'aria-label': 'Breadcrumb', class: 'vak-breadcrumb' },
        h('ol', {}, h('li', {}, 'Settings'), h('li', { 'aria-current': 'page' }, 'API Keys')),
      ),
    ),
    h('div', { class: 'vak-account' }, h('label', { for: 'vak-account' }, 'Account'), picker),
    h('nav', { class: 'vak-links', 'aria-label': 'Links' }, links),
  )

  /** @type {HTMLElement | undefined} the token prompt while it is shown (one at a time) */
  let tokenPrompt
  let tokenTried = false

  function showTokenPrompt() {
    if (tokenPrompt) {
      tokenPrompt.querySelector('input')?.focus()
      return
    }
    const input = h('input', { id: 'vak-admin-token', type: 'password', autocomplete: 'off', required: true })
    const prompt = h(
      'form',
      {
        class: 'vak-card vak-token',
        onsubmit: (/** @type {Event} */ event) => {
          event.preventDefault()
          api.setAdminToken(input.value)
          input.value = ''
          prompt.remove()
          tokenPrompt = undefined
          tokenTried = true
          start()
        },
      },
      h('h2', {}, 'Admin token required'),
      h(
        'p',
        {},
        tokenTried
          ? 'The mock did not accept that token. Enter the --admin-token the mock was started with.'
          : 'This mock was started with --admin-token. Enter it to use the dashboard; it is kept in this page only.',
      ),
      h('label', { for: 'vak-admin-token' }, 'Admin token'),
      input,
      h('button', { type: 'submit', class: 'vak-button vak-primary-button' }, 'Continue'),
    )
    tokenPrompt = prompt
    main.prepend(prompt)
    input.focus()
  }

  async function start() {
    await ctx.refresh('accounts', 'clock')
    if (tokenPrompt) return
    if (!state.accountId || !ctx.account()) state.accountId = state.accounts[0]?.id ?? ''
    await ctx.refresh('accounts', 'keys', 'usage', 'journal', 'scenarios')
    await scenarios.ready
  }

  replace(root, h('a', { class: 'vak-skip', href: '#vak-main' }, 'Skip to the API keys'), header, main)
  root.classList.add('vak')
  const ready = start()
  return {
    /** Resolves once the first load finished. */
    ready,
    /** Reloads everything from the control plane. */
    refresh: () => ctx.refresh('accounts', 'clock', 'keys', 'usage', 'journal', 'scenarios'),
  }
}
