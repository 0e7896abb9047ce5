// @ts-check
/**
 * A tiny DOM builder. Strings always become text nodes, so anything shown is escaped by construction:
 * the dashboard never assigns HTML.
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Props
 */

/**
 * Creates an element. `on*` props add listeners; `class`, `for`, `aria-*`, `data-*` and any name with a
 * dash become attributes; other props are set as properties (`value`, `checked`, `disabled`, `hidden`...).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props} [props]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), /** @type {EventListener} */ (value))
    } else if (name === 'class') element.className = String(value)
    else if (name === 'for') element.setAttribute('for', String(value))
    else if (name.includes('-') || !(name in element)) {
      element.setAttribute(name, value === true ? '' : String(value))
    } else {
      Reflect.set(element, name, value)
    }
  }
  append(element, children)
  return element
}

/**
 * Appends children (nested arrays allowed); strings and numbers become text nodes.
 * @param {Element | DocumentFragment} parent
 * @param {(Child | Child[])[]} children
 */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.append(typeof child === 'object' ? child : String(child))
  }
}

/**
 * Replaces the content of an element.
 * @param {Element} element
 * @param {...(Child | Child[])} children
 */
export function replace(element, ...children) {
  element.replaceChildren()
  append(element, children)
}

let counter = 0
/**
 * A unique id for label/field pairs.
 * @param {string} prefix
 */
export function uid(prefix) {
  counter += 1
  return `vak-${prefix}-${counter}`
}

/**
 * `2026-03-12T12:00:00Z` as `12 Mar 2026, 12:00 UTC`.
 * @param {string | null | undefined} iso
 */
export function formatTime(iso) {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const day = date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  })
  const time = date.toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZone: 'UTC',
  })
  return `${day}, ${time} UTC`
}

/**
 * A duration in words: `45 s`, `3 min`, `2 h 5 min`, `4 days`.
 * @param {number} seconds
 */
export function formatDuration(seconds) {
  const s = Math.abs(Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min`
  if (s < 86400) {
    const minutes = Math.floor((s % 3600) / 60)
    return `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ''}`
  }
  const days = Math.round(s / 86400)
  return `${days} day${days === 1 ? '' : 's'}`
}

/**
 * `iso` relative to the mock's `now`: `3 min ago`, `in 4 days`, `never`.
 * @param {string | null | undefined} iso
 * @param {string | undefined} now
 */
export function formatRelative(iso, now) {
  if (!iso) return 'never'
  if (!now) return formatTime(iso)
  const delta = (Date.parse(iso) - Date.parse(now)) / 1000
  if (Math.abs(delta) < 2) return 'just now'
  return delta < 0 ? `${formatDuration(delta)} ago` : `in ${formatDuration(delta)}`
}

/**
 * A `<time>` element showing `iso` relative to the mock's clock, with the exact time as its title.
 * @param {string | null | undefined} iso
 * @param {string | undefined} now
 */
export function timeElement(iso, now) {
  if (!iso) return h('span', { class: 'vak-muted' }, 'never')
  return h('time', { datetime: iso, title: formatTime(iso) }, formatRelative(iso, now))
}
