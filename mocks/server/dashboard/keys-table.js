// @ts-check
import { cardHead } from './card-head.js'
import { confirmDialog } from './confirm-dialog.js'
import { formatTime, h, replace, timeElement } from './dom.js'

const ALL_SCOPES = 8

/**
 * How a key's permissions read in the table.
 * @param {string[]} permissions
 */
function permissionSummary(permissions) {
  if (permissions.length === ALL_SCOPES) return 'All (read and write)'
  if (permissions.length === 0) return 'None (GET /v1/user only)'
  return permissions.join(', ')
}

/**
 * Restrictions as short lines.
 * @param {{ allowed_ips: string[], allowed_origins: string[], expires_at: string | null }} restrictions
 * @param {string | undefined} now
 */
function restrictionLines(restrictions, now) {
  const lines = []
  if (restrictions.allowed_ips.length) lines.push(`IPs: ${restrictions.allowed_ips.join(', ')}`)
  if (restrictions.allowed_origins.length) lines.push(`Origins: ${restrictions.allowed_origins.join(', ')}`)
  if (restrictions.expires_at) {
    const expired = now !== undefined && Date.parse(restrictions.expires_at) <= Date.parse(now)
    lines.push(`${expired ? 'Expired' : 'Expires'} ${formatTime(restrictions.expires_at)}`)
  }
  return lines
}

/**
 * The rotation-due cell: the date, and a badge when the 90 days are (nearly) over by the mock's clock.
 * @param {any} key
 * @param {string | undefined} now
 */
function rotationCell(key, now) {
  if (key.status === 'revoked') return h('span', { class: 'vak-muted' }, '—')
  const left = now
    ? (Date.parse(key.rotation_due_at) - Date.parse(now)) / 86_400_000
    : Number.POSITIVE_INFINITY
  const badge =
    left <= 0
      ? h('span', { class: 'vak-badge vak-badge-danger' }, 'Rotate now')
      : left <= 14
        ? h('span', { class: 'vak-badge vak-badge-warning' }, `Due in ${Math.ceil(left)} days`)
        : null
  return [timeElement(key.rotation_due_at, now), badge && ' ', badge]
}

/**
 * The account's keys: redacted value, permissions, last use, rotation due, and revocation.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createKeysTable(ctx) {
  const body = h('tbody')
  const count = h('span', { class: 'vak-count' })
  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-keys-title' },
    cardHead(ctx, h('h2', { id: 'vak-keys-title', tabindex: '-1' }, 'Keys ', count)),
    h(
      'div',
      { class: 'vak-table-wrap', role: 'region', 'aria-labelledby': 'vak-keys-title', tabindex: '0' },
      h(
        'table',
        { class: 'vak-table', id: 'vak-keys' },
        h('caption', { class: 'vak-visually-hidden' }, 'API keys of the account; values are shown redacted'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Key', 'Permissions', 'Last used', 'Rotation due', 'Status'].map((label) =>
              h('th', { scope: 'col' }, label),
            ),
          ),
        ),
        body,
      ),
    ),
  )

  /** @param {any} key */
  async function revoke(key) {
    const confirmed = await confirmDialog({
      title: `Revoke “${key.name}”?`,
      body: `Every request that uses ${key.redacted_value} gets 401 from the next request on. Revoking cannot be undone.`,
      confirmLabel: 'Revoke key',
    })
    if (!confirmed) return
    const result = await ctx.api.revokeKey(key.id)
    if (result.error) {
      ctx.announce(`Could not revoke “${key.name}”: ${result.error.message}`, 'error')
      return
    }
    await ctx.refresh('keys', 'journal')
    ctx.announce(
      `Key “${key.name}” revoked. Requests that use it now get 401; watch the failed requests below.`,
    )
    const cell = body.querySelector(`[data-key-id="${CSS.escape(key.id)}"] th`)
    if (cell instanceof HTMLElement) cell.focus()
  }

  /** @param {any} key */
  function row(key) {
    const now = ctx.now()
    const restrictions = restrictionLines(key.restrictions, now)
    const revoked = key.status === 'revoked'
    return h(
      'tr',
      { 'data-key-id': key.id, class: revoked ? 'vak-revoked' : undefined },
      h(
        'th',
        { scope: 'row', tabindex: '-1' },
        h('span', { class: 'vak-key-name' }, key.name),
        h('span', { class: 'vak-sub' }, `${key.type === 'secret' ? 'Secret' : 'Publishable'} · ${key.id}`),
        h('span', { class: 'vak-sub' }, 'Created ', timeElement(key.created_at, now)),
        restrictions.map((line) => h('span', { class: 'vak-sub' }, line)),
      ),
      h('td', {}, h('code', { class: 'vak-redacted' }, key.redacted_value)),
      h('td', { class: 'vak-permissions' }, permissionSummary(key.permissions)),
      h('td', {}, timeElement(key.last_used_at, now)),
      h('td', {}, rotationCell(key, now)),
      h(
        'td',
        {},
        h(
          'div',
          { class: 'vak-status-cell' },
          revoked
            ? h('span', { class: 'vak-badge' }, 'Revoked ', timeElement(key.revoked_at, now))
            : [
                h('span', { class: 'vak-badge vak-badge-ok' }, 'Active'),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'vak-button vak-small vak-danger-button',
                    'aria-label': `Revoke key ${key.name}`,
                    onclick: () => revoke(key),
                  },
                  'Revoke',
                ),
              ],
        ),
      ),
    )
  }

  ctx.on('keys', () => {
    const keys = ctx.state.keys
    const active = keys.filter((k) => k.status === 'active').length
    count.textContent = `(${active} active, ${keys.length - active} revoked)`
    replace(
      body,
      keys.length === 0
        ? h('tr', {}, h('td', { colspan: '6', class: 'vak-empty' }, 'No keys yet. Create one below.'))
        : keys.map(row),
    )
  })
  return { element }
}
