// @ts-check
import { h } from './dom.js'

/**
 * The head of a dashboard card: its heading and a Refresh button that reloads every panel.
 * @param {import('./dashboard.js').DashboardContext} ctx
 * @param {HTMLHeadingElement} heading
 */
export function cardHead(ctx, heading) {
  return h(
    'div',
    { class: 'vak-card-head' },
    heading,
    h(
      'button',
      {
        type: 'button',
        class: 'vak-button vak-small',
        onclick: () =>
          ctx
            .refresh('clock', 'keys', 'usage', 'journal', 'scenarios')
            .then(() => ctx.announce('Refreshed.')),
      },
      'Refresh',
    ),
  )
}
