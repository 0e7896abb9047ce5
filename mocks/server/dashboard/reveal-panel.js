// @ts-check
import { confirmDialog } from './confirm-dialog.js'
import { h, replace } from './dom.js'

/**
 * The one-time reveal of a new key's value. The value lives only in this closure and in the read-only field
 * while the panel is open; dismissing the panel removes both. It is never written to storage, the URL or
 * the console.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createRevealPanel(ctx) {
  const element = h('section', {
    class: 'vak-card vak-reveal',
    id: 'vak-reveal',
    hidden: true,
    tabindex: '-1',
    'aria-labelledby': 'vak-reveal-title',
  })
  /** @type {string | null} */
  let value = null
  let copied = false

  async function copy() {
    if (value === null) return
    const field = /** @type {HTMLInputElement | null} */ (element.querySelector('#vak-reveal-value'))
    try {
      await navigator.clipboard.writeText(value)
    } catch {
      // No clipboard permission: fall back to the selection.
      field?.select()
      if (!document.execCommand('copy')) {
        ctx.announce(
          'Copying was blocked by the browser: the value is selected, press Ctrl+C (or ⌘C).',
          'error',
        )
        return
      }
    }
    copied = true
    const button = element.querySelector('[data-action="copy"]')
    if (button) button.textContent = 'Copied'
    ctx.announce('The key was copied to the clipboard.')
  }

  /** @param {boolean} [moveFocus] */
  function dismiss(moveFocus = true) {
    value = null
    copied = false
    replace(element)
    element.hidden = true
    if (moveFocus) document.getElementById('vak-keys-title')?.focus()
  }

  async function done() {
    if (!copied) {
      const close = await confirmDialog({
        title: 'Close without copying?',
        body: 'You have not copied this key. Once you close this panel its value cannot be viewed again; you would have to create a new key.',
        confirmLabel: 'Close anyway',
        cancelLabel: 'Keep it open',
      })
      if (!close) return
    }
    dismiss()
    ctx.announce('The key value is hidden for good. Only its redacted form is listed.')
  }

  return {
    element,
    dismiss,
    /**
     * Shows a new key's value, once.
     * @param {any} record the key record (without its value)
     * @param {string} keyValue
     */
    show(record, keyValue) {
      value = keyValue
      copied = false
      const where =
        record.type === 'secret'
          ? 'Keep it in an environment variable or a secret manager on your server; never put a secret key in client-side code.'
          : 'A publishable key is read-only and safe in client-side code.'
      replace(
        element,
        h('h2', { id: 'vak-reveal-title' }, `Your new key “${record.name}”`),
        h(
          'p',
          { class: 'vak-warning', id: 'vak-reveal-warning' },
          h('strong', {}, 'Copy it now: this key cannot be viewed again. '),
          'The mock keeps only a hash of it. ',
          where,
        ),
        h('label', { for: 'vak-reveal-value' }, 'Key value'),
        h(
          'div',
          { class: 'vak-copy-row' },
          h('input', {
            id: 'vak-reveal-value',
            class: 'vak-secret',
            type: 'text',
            readOnly: true,
            value: keyValue,
            autocomplete: 'off',
            spellcheck: false,
            'aria-describedby': 'vak-reveal-warning',
            onfocus: (/** @type {FocusEvent} */ event) =>
              /** @type {HTMLInputElement} */ (event.target).select(),
          }),
          h(
            'button',
            { type: 'button', class: 'vak-button vak-primary-button', 'data-action': 'copy', onclick: copy },
            'Copy',
          ),
        ),
        h(
          'div',
          { class: 'vak-actions' },
          h(
            'button',
            { type: 'button', class: 'vak-button', 'data-action': 'done', onclick: done },
            'Done, I have stored it',
          ),
        ),
      )
      element.hidden = false
      element.focus()
      ctx.announce(`Key “${record.name}” created. Copy its value now; it cannot be viewed again.`)
    },
  }
}
