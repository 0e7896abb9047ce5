// @ts-check
import { cardHead } from './card-head.js'
import { h, replace, timeElement } from './dom.js'

/**
 * The request journal of the account, failed requests (4xx) by default, optionally for one key: the place to
 * watch after a rotation for clients still using the old key.
 * @param {import('./dashboard.js').DashboardContext} ctx
 */
export function createJournalPanel(ctx) {
  const keySelect = h('select', { id: 'vak-journal-key' })
  const statusSelect = h(
    'select',
    { id: 'vak-journal-status' },
    h('option', { value: '4xx' }, 'Failed (4xx)'),
    h('option', { value: '401' }, 'Unauthorized (401)'),
    h('option', { value: '403' }, 'Forbidden (403)'),
    h('option', { value: '429' }, 'Rate limited (429)'),
    h('option', { value: '' }, 'All requests'),
  )
  const apply = () => {
    ctx.state.journalView = { keyId: keySelect.value, status: statusSelect.value }
    ctx.refresh('journal')
  }
  keySelect.addEventListener('change', apply)
  statusSelect.addEventListener('change', apply)
  const body = h('tbody')
  const summary = h('p', { class: 'vak-hint', id: 'vak-journal-summary' })

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-journal-title' },
    cardHead(ctx, h('h2', { id: 'vak-journal-title' }, 'Request journal')),
    h(
      'p',
      { class: 'vak-hint' },
      'After a rotation, requests still made with the revoked key show up here as 401s. Only this account’s keys are listed; the journal never holds key values.',
    ),
    h(
      'div',
      { class: 'vak-field-row vak-filters' },
      h('div', { class: 'vak-field' }, h('label', { for: keySelect.id }, 'Key'), keySelect),
      h('div', { class: 'vak-field' }, h('label', { for: statusSelect.id }, 'Show'), statusSelect),
    ),
    summary,
    h(
      'div',
      { class: 'vak-table-wrap', role: 'region', 'aria-labelledby': 'vak-journal-title', tabindex: '0' },
      h(
        'table',
        { class: 'vak-table', id: 'vak-journal', 'aria-describedby': 'vak-journal-summary' },
        h('caption', { class: 'vak-visually-hidden' }, 'Recent v1 requests, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Time', 'Request', 'Status', 'Key', 'Request id'].map((label) =>
              h('th', { scope: 'col' }, label),
            ),
          ),
        ),
        body,
      ),
    ),
  )

  function renderKeyOptions() {
    const selected = ctx.state.journalView.keyId
    replace(
      keySelect,
      h('option', { value: '' }, 'All keys'),
      ctx.state.keys.map((k) =>
        h(
          'option',
          { value: k.id, selected: k.id === selected },
          `${k.name} (${k.redacted_value}${k.status === 'revoked' ? ', revoked' : ''})`,
        ),
      ),
    )
    statusSelect.value = ctx.state.journalView.status
  }

  ctx.on('keys', renderKeyOptions)
  ctx.on('journal', () => {
    const now = ctx.now()
    const names = new Map(ctx.state.keys.map((k) => [k.id, `${k.name} (${k.redacted_value})`]))
    const entries = ctx.state.journal
    const label = statusSelect.selectedOptions[0]?.textContent?.toLowerCase() ?? 'matching'
    summary.textContent =
      entries.length === 0
        ? `No ${label} requests so far.`
        : `${entries.length} most recent ${label} requests, newest first.`
    replace(
      body,
      entries.map((e) =>
        h(
          'tr',
          { 'data-status': e.status },
          h('td', {}, timeElement(e.at, now)),
          h('td', {}, h('code', {}, `${e.method} ${e.path}`)),
          h(
            'td',
            {},
            h(
              'span',
              { class: `vak-badge ${e.status >= 400 ? 'vak-badge-danger' : 'vak-badge-ok'}` },
              String(e.status),
            ),
          ),
          h(
            'td',
            {},
            e.key_id ? (names.get(e.key_id) ?? e.key_id) : h('span', { class: 'vak-muted' }, 'no key'),
          ),
          h('td', {}, h('code', { class: 'vak-sub' }, e.id)),
        ),
      ),
    )
  })
  return { element }
}
