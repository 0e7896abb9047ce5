// @ts-check
import { confirmDialog } from './confirm-dialog.js'
import { formatTime, h } from './dom.js'

/** A capsule may hold this many bytes, and the mock refuses a larger one (`POST /_mock/capsule`). */
const MAX_CAPSULE_BYTES = 64 * 1024 * 1024

/** `capsule-2026-03-12T13-10-45Z.json` for a capsule of the mock clock's `now`. @param {string | undefined} now */
function fileName(now) {
  const stamp = (now ?? new Date().toISOString()).replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')
  return `capsule-${stamp}.json`
}

/** @param {number} bytes */
const size = (bytes) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`

/**
 * State capsules: "Download capsule" saves the mock's whole state as one file (no key value in it), and "Open
 * capsule" replaces this mock's state by a file's, so that a state seen elsewhere (a bug report, a failed
 * contract run) can be reproduced here.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createCapsulePanel(ctx) {
  const picker = h('input', {
    id: 'vak-capsule-file',
    type: 'file',
    accept: '.json,application/json',
    'aria-label': 'Capsule file to open',
    class: 'vak-visually-hidden',
    tabindex: '-1',
    onchange: () => {
      const file = picker.files?.[0]
      picker.value = ''
      if (file) open(file)
    },
  })

  async function download() {
    const result = await ctx.api.capsuleText()
    if (result.error) {
      ctx.announce(`Could not take a capsule: ${result.error.message}`, 'error')
      return
    }
    const text = /** @type {string} */ (result.data)
    const now = /** @type {{ clock?: { now?: string } }} */ (JSON.parse(text)).clock?.now
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }))
    const link = h('a', { href: url, download: fileName(now), hidden: true })
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
    ctx.announce(`Capsule downloaded (${size(text.length)}): it holds no key value.`)
  }

  /** @param {File} file */
  async function open(file) {
    if (file.size > MAX_CAPSULE_BYTES) {
      ctx.announce(
        `Could not open ${file.name}: it is ${size(file.size)}; a capsule holds at most 64 MB.`,
        'error',
      )
      return
    }
    const confirmed = await confirmDialog({
      title: 'Open this capsule?',
      body: `Everything in this mock (accounts, keys, data, scenarios, calls, the clock) is replaced by the state in ${file.name}. Keys created where the capsule was taken work here; the demo keys printed at this mock's start stop working unless the capsule came from it.`,
      confirmLabel: 'Open capsule',
    })
    if (!confirmed) return
    const result = await ctx.api.openCapsule(await file.text())
    if (result.error) {
      ctx.announce(`Could not open ${file.name}: ${result.error.message}`, 'error')
      return
    }
    ctx.state.journalView.keyId = ''
    await ctx.refresh('accounts', 'clock')
    if (!ctx.account()) ctx.state.accountId = ctx.state.accounts[0]?.id ?? ''
    await ctx.refresh('accounts', 'keys', 'usage', 'journal', 'scenarios')
    ctx.announce(
      `Capsule opened: the state taken ${formatTime(result.data.created_at)}; the mock clock reads ${formatTime(ctx.state.clock?.now)}.`,
    )
  }

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-capsule-title' },
    h('h2', { id: 'vak-capsule-title' }, 'State capsule'),
    h(
      'p',
      { class: 'vak-hint' },
      'The whole state of this mock as one file (accounts, keys as digests, data, clock, scenarios, calls), to open in another mock and see what happens here. It holds no key value.',
    ),
    h(
      'div',
      { class: 'vak-step-buttons' },
      h('button', { type: 'button', class: 'vak-button vak-small', onclick: download }, 'Download capsule'),
      h(
        'button',
        { type: 'button', class: 'vak-button vak-small', onclick: () => picker.click() },
        'Open capsule…',
      ),
    ),
    picker,
  )
  return { element }
}
