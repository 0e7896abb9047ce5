// @ts-check
import { h, replace } from './dom.js'

/**
 * The spec's permission choices, by group (docs/decisions/004-permissions.md).
 * @type {{ group: string, legend: string, scopes: [string, string][] }[]}
 */
const GROUPS = [
  {
    group: 'read',
    legend: 'Read',
    scopes: [
      ['agents:read', 'View agents'],
      ['call_logs:read', 'Read call logs'],
      ['analytics:read', 'Access analytics'],
      ['integrations:read', 'View integrations'],
    ],
  },
  {
    group: 'write',
    legend: 'Write',
    scopes: [
      ['agents:write', 'Create and modify agents'],
      ['integrations:write', 'Update integrations'],
      ['team_members:write', 'Manage team members'],
      ['resources:delete', 'Delete resources'],
    ],
  },
]
const PUBLISHABLE_SCOPE = 'agents:read'

/**
 * Lines or commas to a list.
 * @param {string} text
 */
function listOf(text) {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/**
 * The "create a new key" form: type, name, permissions, restrictions; on success the value goes to the
 * reveal panel and nowhere else.
 * @param {import('./dashboard.js').DashboardContext} ctx
 * @param {ReturnType<typeof import('./reveal-panel.js').createRevealPanel>} reveal
 */
export function createKeyForm(ctx, reveal) {
  const errors = h('div', {
    class: 'vak-errors',
    id: 'vak-create-errors',
    role: 'alert',
    tabindex: '-1',
    hidden: true,
  })
  const type = h(
    'select',
    { id: 'vak-key-type', name: 'type', 'aria-describedby': 'vak-key-type-hint' },
    h('option', { value: 'secret' }, 'Secret (sk-svc-…)'),
    h('option', { value: 'publishable' }, 'Publishable (pk-svc-…)'),
  )
  const name = h('input', {
    id: 'vak-key-name',
    name: 'name',
    type: 'text',
    required: true,
    maxLength: 100,
    autocomplete: 'off',
    placeholder: 'e.g. Production backend',
  })
  /** @type {HTMLInputElement[]} */
  const scopeBoxes = []
  /** @type {{ all: HTMLInputElement, boxes: HTMLInputElement[], group: string }[]} */
  const groupBoxes = []
  const publishableHint = h(
    'p',
    { class: 'vak-hint', id: 'vak-permissions-hint' },
    'Secret keys get every permission unless you untick some; give each key only what it needs.',
  )
  const fieldsets = GROUPS.map(({ group, legend, scopes }) => {
    const boxes = scopes.map(([scope]) =>
      h('input', {
        type: 'checkbox',
        name: 'permissions',
        value: scope,
        id: `vak-scope-${scope.replace(/\W/g, '-')}`,
        checked: true,
      }),
    )
    scopeBoxes.push(...boxes)
    const all = h('input', { type: 'checkbox', id: `vak-group-${group}`, checked: true })
    groupBoxes.push({ all, boxes, group })
    all.addEventListener('change', () => {
      for (const box of boxes) if (!box.disabled) box.checked = all.checked
      syncGroups()
    })
    for (const box of boxes) box.addEventListener('change', syncGroups)
    return h(
      'fieldset',
      { class: 'vak-scopes' },
      h('legend', {}, legend),
      h(
        'div',
        { class: 'vak-check vak-check-all' },
        all,
        h('label', { for: all.id }, `All ${legend.toLowerCase()} permissions`),
      ),
      scopes.map(([scope, label], i) =>
        h(
          'div',
          { class: 'vak-check' },
          boxes[i],
          h('label', { for: boxes[i]?.id }, label, ' ', h('code', {}, scope)),
        ),
      ),
    )
  })

  function syncGroups() {
    for (const { all, boxes } of groupBoxes) {
      const enabled = boxes.filter((b) => !b.disabled)
      const checked = enabled.filter((b) => b.checked).length
      all.checked = enabled.length > 0 && checked === enabled.length
      all.indeterminate = checked > 0 && checked < enabled.length
      all.disabled = enabled.length === 0
    }
  }

  function syncType() {
    const publishable = type.value === 'publishable'
    for (const box of scopeBoxes) {
      const allowed = !publishable || box.value === PUBLISHABLE_SCOPE
      box.disabled = !allowed
      box.checked = publishable ? box.value === PUBLISHABLE_SCOPE : true
    }
    publishableHint.textContent = publishable
      ? 'Publishable keys may only view agents (agents:read); the other permissions are not available to them.'
      : 'Secret keys get every permission unless you untick some; give each key only what it needs.'
    syncGroups()
  }
  type.addEventListener('change', syncType)

  const ips = h('textarea', {
    id: 'vak-key-ips',
    name: 'allowed_ips',
    rows: 2,
    'aria-describedby': 'vak-key-ips-hint',
    spellcheck: false,
  })
  const origins = h('textarea', {
    id: 'vak-key-origins',
    name: 'allowed_origins',
    rows: 2,
    'aria-describedby': 'vak-key-origins-hint',
    spellcheck: false,
  })
  const expires = h('input', {
    id: 'vak-key-expires',
    name: 'expires_at',
    type: 'datetime-local',
    'aria-describedby': 'vak-key-expires-hint',
  })
  const submit = h('button', { type: 'submit', class: 'vak-button vak-primary-button' }, 'Generate key')

  /** Fields by the `param` prefix of a 422 error. */
  const fields = /** @type {[string, HTMLElement][]} */ ([
    ['type', type],
    ['name', name],
    ['permissions', /** @type {HTMLElement} */ (scopeBoxes[0])],
    ['restrictions.allowed_ips', ips],
    ['restrictions.allowed_origins', origins],
    ['restrictions.expires_at', expires],
  ])

  /** @param {{ param?: string, message: string }[]} list */
  function showErrors(list) {
    for (const [, field] of fields) field.removeAttribute('aria-invalid')
    if (list.length === 0) {
      errors.hidden = true
      replace(errors)
      return
    }
    for (const error of list) {
      const match = fields.find(([param]) => error.param === param || error.param?.startsWith(`${param}.`))
      match?.[1].setAttribute('aria-invalid', 'true')
    }
    replace(
      errors,
      h('p', {}, 'The key was not created:'),
      h(
        'ul',
        {},
        list.map((e) => h('li', {}, e.message)),
      ),
    )
    errors.hidden = false
    errors.focus()
  }

  /** The request body the form describes. */
  function input() {
    const checked = scopeBoxes.filter((b) => b.checked && !b.disabled).map((b) => b.value)
    /** @type {string[]} */
    const permissions = []
    for (const { boxes, group } of groupBoxes) {
      const scopes = boxes.map((b) => b.value)
      if (type.value === 'secret' && scopes.every((s) => checked.includes(s))) permissions.push(group)
      else permissions.push(...scopes.filter((s) => checked.includes(s)))
    }
    /** @type {Record<string, unknown>} */
    const restrictions = {}
    if (listOf(ips.value).length) restrictions.allowed_ips = listOf(ips.value)
    if (listOf(origins.value).length) restrictions.allowed_origins = listOf(origins.value)
    if (expires.value) {
      const when = new Date(expires.value)
      restrictions.expires_at = Number.isNaN(when.getTime())
        ? expires.value
        : when.toISOString().replace(/\.\d{3}Z$/, 'Z')
    }
    return {
      type: type.value,
      name: name.value.trim(),
      permissions,
      ...(Object.keys(restrictions).length ? { restrictions } : {}),
    }
  }

  const form = h(
    'form',
    {
      class: 'vak-form',
      novalidate: true,
      'aria-describedby': 'vak-create-intro',
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault()
        if (!name.value.trim()) {
          showErrors([
            { param: 'name', message: 'Give the key a name, e.g. the app or job that will use it.' },
          ])
          name.focus()
          return
        }
        submit.disabled = true
        submit.textContent = 'Generating…'
        const result = await ctx.api.createKey(ctx.state.accountId, input())
        submit.disabled = false
        submit.textContent = 'Generate key'
        if (result.error) {
          showErrors(result.error.errors.length ? result.error.errors : [{ message: result.error.message }])
          return
        }
        showErrors([])
        const { value, ...record } = result.data
        form.reset()
        syncType()
        reveal.show(record, value)
        await ctx.refresh('keys')
      },
    },
    errors,
    h(
      'div',
      { class: 'vak-field-row' },
      h(
        'div',
        { class: 'vak-field' },
        h('label', { for: type.id }, 'Type'),
        type,
        h(
          'p',
          { class: 'vak-hint', id: 'vak-key-type-hint' },
          'Secret: full access, server-side only. Publishable: read-only, safe in client-side code.',
        ),
      ),
      h('div', { class: 'vak-field' }, h('label', { for: name.id }, 'Name'), name),
    ),
    h(
      'fieldset',
      { class: 'vak-permissions-set', 'aria-describedby': 'vak-permissions-hint' },
      h('legend', {}, 'Permissions'),
      publishableHint,
      h('div', { class: 'vak-scope-groups' }, fieldsets),
    ),
    h(
      'fieldset',
      { class: 'vak-restrictions' },
      h('legend', {}, 'Restrictions (optional)'),
      h(
        'div',
        { class: 'vak-field-row' },
        h(
          'div',
          { class: 'vak-field' },
          h('label', { for: ips.id }, 'Allowed IP addresses'),
          ips,
          h(
            'p',
            { class: 'vak-hint', id: 'vak-key-ips-hint' },
            'Addresses or CIDRs, one per line, e.g. 203.0.113.0/24. Empty: anywhere.',
          ),
        ),
        h(
          'div',
          { class: 'vak-field' },
          h('label', { for: origins.id }, 'Allowed origins'),
          origins,
          h(
            'p',
            { class: 'vak-hint', id: 'vak-key-origins-hint' },
            'One per line, e.g. https://app.example.com. Empty: any.',
          ),
        ),
      ),
      h(
        'div',
        { class: 'vak-field vak-field-narrow' },
        h('label', { for: expires.id }, 'Expires'),
        expires,
        h(
          'p',
          { class: 'vak-hint', id: 'vak-key-expires-hint' },
          'In your local time; must be after the mock clock. Empty: never.',
        ),
      ),
    ),
    h('div', { class: 'vak-actions' }, submit),
  )
  form.addEventListener('reset', () => requestAnimationFrame(syncType))

  const element = h(
    'section',
    { class: 'vak-card', 'aria-labelledby': 'vak-create-title' },
    h('h2', { id: 'vak-create-title' }, 'Create a new key'),
    h(
      'p',
      { id: 'vak-create-intro', class: 'vak-hint' },
      'Choose the type, give the key a name, optionally narrow its permissions and restrictions, then generate it. Its value is shown once.',
    ),
    form,
  )
  syncType()
  return { element }
}
