// @ts-check
import { h } from './dom.js'

/**
 * Asks for confirmation in a modal `<dialog>` (focus stays inside it; Escape cancels). Resolves to true
 * only when the confirm button was pressed. Focus returns to where it was.
 * @param {{ title: string, body: string, confirmLabel: string, cancelLabel?: string, tone?: 'danger' | 'normal' }} options
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, body, confirmLabel, cancelLabel = 'Cancel', tone = 'danger' }) {
  const opener = /** @type {HTMLElement | null} */ (document.activeElement)
  return new Promise((resolve) => {
    const titleId = 'vak-dialog-title'
    const bodyId = 'vak-dialog-body'
    const cancel = h(
      'button',
      { type: 'button', class: 'vak-button', value: 'cancel', autofocus: true },
      cancelLabel,
    )
    const confirm = h(
      'button',
      {
        type: 'button',
        class: `vak-button ${tone === 'danger' ? 'vak-danger-button' : 'vak-primary-button'}`,
        value: 'confirm',
      },
      confirmLabel,
    )
    const dialog = h(
      'dialog',
      { class: 'vak-dialog', 'aria-labelledby': titleId, 'aria-describedby': bodyId },
      h('h2', { id: titleId }, title),
      h('p', { id: bodyId }, body),
      h('div', { class: 'vak-actions' }, cancel, confirm),
    )
    cancel.addEventListener('click', () => dialog.close('cancel'))
    confirm.addEventListener('click', () => dialog.close('confirm'))
    dialog.addEventListener('close', () => {
      const confirmed = dialog.returnValue === 'confirm'
      dialog.remove()
      if (opener?.isConnected) opener.focus()
      resolve(confirmed)
    })
    const host = document.querySelector('.vak') ?? document.body
    host.append(dialog)
    dialog.showModal()
    cancel.focus()
  })
}
