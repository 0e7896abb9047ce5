// @ts-check
import { confirmDialog } from './confirm-dialog.js'
import { formatTime, h, replace } from './dom.js'

/**
 * The account's webhook signing secret: whether there is one, create or rotate it (its value shown once, in a
 * read-only field, until dismissed; never stored), revoke it.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createWebhookSecretBox(ctx) {
  const status = h('p', { class: 'vak-hint', id: 'vak-secret-status' })
  const reveal = h('div', { class: 'vak-reveal', id: 'vak-secret-reveal', hidden: true })
  const createButton = h('button', { type: 'button', class: 'vak-button vak-small', id: 'vak-secret-create' })
  const revokeButton = h(
    'button',
    { type: 'button', class: 'vak-button vak-small vak-danger-button', id: 'vak-secret-revoke' },
    'Revoke…',
  )
  /** @type {boolean} */
  let present = false

  const path = () => `/accounts/${encodeURIComponent(ctx.state.accountId)}/webhook-secret`

  /** Asks whether the account has a secret (200 either way: `exists`). */
  async function load() {
    if (!ctx.state.accountId) return
    const result = await ctx.api.request('GET', path())
    present = result.data?.exists === true
    status.textContent = present
      ? `Webhooks are signed with a secret created ${formatTime(result.data.created_at)}.`
      : 'No signing secret: deliveries fail until you create one.'
    createButton.textContent = present ? 'Rotate secret…' : 'Create secret'
    revokeButton.hidden = !present
  }

  function dismiss() {
    replace(reveal)
    reveal.hidden = true
    createButton.focus()
  }

  async function create() {
    if (present) {
      const confirmed = await confirmDialog({
        title: 'Rotate the signing secret?',
        body: 'Every webhook from now on is signed with the new secret only: receivers verifying with the old one start rejecting them.',
        confirmLabel: 'Rotate',
      })
      if (!confirmed) return
    }
    const result = await ctx.api.request('POST', path())
    if (result.error) {
      ctx.announce(`Could not create the secret: ${result.error.message}`, 'error')
      return
    }
    const field = h('input', {
      id: 'vak-secret-value',
      class: 'vak-secret',
      readOnly: true,
      value: result.data.value,
      'aria-describedby': 'vak-secret-once',
      onfocus: (/** @type {FocusEvent} */ event) => /** @type {HTMLInputElement} */ (event.target).select(),
    })
    replace(
      reveal,
      h('label', { for: field.id }, 'Signing secret'),
      h('div', { class: 'vak-copy-row' }, field),
      h(
        'p',
        { class: 'vak-hint', id: 'vak-secret-once' },
        'Shown this once: give it to your receiver’s Standard Webhooks library now.',
      ),
      h('button', { type: 'button', class: 'vak-button vak-small', onclick: dismiss }, 'Done'),
    )
    reveal.hidden = false
    field.focus()
    await load()
    ctx.announce(result.data.rotated ? 'The signing secret was rotated.' : 'A signing secret was created.')
  }

  async function revoke() {
    const confirmed = await confirmDialog({
      title: 'Revoke the signing secret?',
      body: 'No webhook is sent until a new secret is created.',
      confirmLabel: 'Revoke',
    })
    if (!confirmed) return
    const result = await ctx.api.request('DELETE', path())
    if (result.error) ctx.announce(`Could not revoke the secret: ${result.error.message}`, 'error')
    else ctx.announce('The signing secret was revoked.')
    await load()
  }

  createButton.addEventListener('click', create)
  revokeButton.addEventListener('click', revoke)
  const element = h(
    'div',
    {},
    h('h3', {}, 'Signing secret'),
    status,
    h('div', { class: 'vak-actions' }, createButton, revokeButton),
    reveal,
  )
  return { element, load, dismiss }
}
