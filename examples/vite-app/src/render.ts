import type { ApiResult } from './api-client.ts'

type Child = Node | string | null | undefined

/** An element with text children (strings become text nodes, so nothing is parsed as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value)
  for (const child of children) if (child !== null && child !== undefined) element.append(child)
  return element
}

/** A table with a caption, from column labels and a cell function. */
export function table<T>(caption: string, columns: string[], rows: T[], cells: (row: T) => Child[]) {
  return el(
    'table',
    {},
    el('caption', {}, caption),
    el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col' }, c)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...cells(row).map((cell) => el('td', {}, cell))))),
  )
}

/** Shows the outcome of a request in a status line: `200 OK · 8 agents` or `401 invalid_api_key: ...`. */
export function showStatus(target: HTMLElement, result: ApiResult<unknown>, success: string) {
  target.dataset.status = String(result.status)
  target.className = result.ok ? 'status ok' : 'status error'
  target.textContent = result.ok
    ? `${result.status} OK · ${success}`
    : `${result.status || 'network error'} ${result.error.code}: ${result.error.message}`
}

/** The loading state of a card: a status line that says so, and its content marked busy (dimmed). */
export function showLoading(target: HTMLElement, content: HTMLElement, message: string) {
  target.dataset.status = 'loading'
  target.className = 'status loading'
  target.textContent = message
  content.setAttribute('aria-busy', 'true')
}

/** `2026-03-12T12:00:00Z` as a short local date and time. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—'
  return new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })
}
