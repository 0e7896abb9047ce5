import { type Coverage, coverageFigure } from '../runner/coverage.ts'
import { type AreaTitles, areasIn, SUITE_AREA_TITLES } from './area-titles.ts'
import type { ReportEntry } from './entries.ts'
import { HTML_STYLE } from './html-style.ts'
import type { RunFigures } from './summary.ts'

/** What the HTML report shows. */
export interface HtmlReportInput {
  /** What ran against what: `Contract suite against https://... (read-only)`. */
  header: string
  entries: readonly ReportEntry[]
  durationMs: number
  figures?: RunFigures
  /** Messages about the run as a whole (it stopped early, nothing passed). */
  notices?: readonly string[]
  generatedAt?: Date
  /** The page's title and heading (default `Contract suite report`). */
  title?: string
  /** The areas, in report order, with their titles (the suite's by default). */
  areas?: AreaTitles
}

const html = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const LABEL = { passed: 'passed', failed: 'failed', skipped: 'skipped', 'not-applicable': 'not applicable' }

function counts(entries: readonly ReportEntry[]): string {
  return (Object.keys(LABEL) as (keyof typeof LABEL)[])
    .map((s) => [s, entries.filter((e) => e.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${LABEL[s]}`)
    .join(', ')
}

/** The capsule of the mock before a failed check, when the run took one: its link and how to open it. */
function capsuleLink(entry: ReportEntry): string {
  if (!entry.capsule) return ''
  const file = html(entry.capsule)
  return `<h3>Reproduce the mock's state</h3><p class="capsule"><a href="${file}" download>${file}</a>: the mock's whole state before this check. Start a mock from it with <code>voice-api-kit mock --from-capsule ${file}</code>, or open it in the dashboard ("Open capsule").</p>`
}

function failureBlock(entry: ReportEntry): string {
  const d = entry.details
  const part = (label: string, text: string | undefined) =>
    text ? `<h3>${label}</h3><pre>${html(text)}</pre>` : ''
  const body = d
    ? [
        `<p><strong>Expected:</strong> ${html(d.expected)}</p>`,
        `<p><strong>Actual:</strong> ${html(d.actual)}</p>`,
        part('Request', d.request),
        part('Response', d.response),
        part('Reproduce with curl', d.curl),
        capsuleLink(entry),
      ].join('\n')
    : `<pre>${html(entry.failure ?? '')}</pre>`
  return `<details class="failure" open id="${html(entry.id)}"><summary>${html(entry.group)} &gt; ${html(entry.title)}</summary>\n${body}\n</details>`
}

function areaSection(area: string, title: string, entries: readonly ReportEntry[]): string {
  const rows = entries
    .map(
      (e) =>
        `<tr class="${e.status}"><td class="status ${e.status}">${LABEL[e.status]}</td><td>${html(e.group)}</td><td>${html(e.title)}${
          e.reason ? `<div class="reason">${html(e.reason)}</div>` : ''
        }</td><td>${e.requests}</td></tr>`,
    )
    .join('\n')
  const failures = entries
    .filter((e) => e.status === 'failed')
    .map(failureBlock)
    .join('\n')
  return `<section class="area" id="area-${html(area)}" data-area="${html(area)}">
<h2>${html(title)} <small>(${counts(entries)})</small></h2>
${failures}
<table><thead><tr><th>result</th><th>group</th><th>check</th><th>requests</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`
}

function coverageSection(coverage: Coverage): string {
  const statuses = [...new Set(coverage.rows.flatMap((r) => r.statuses.map((s) => s.status)))].sort()
  const head = statuses.map((s) => `<th>${html(s)}</th>`).join('')
  const rows = coverage.rows
    .map((row) => {
      const cells = statuses
        .map((status) => {
          const cell = row.statuses.find((s) => s.status === status)
          if (!cell) return '<td class="none" title="not documented">&middot;</td>'
          return cell.exercised
            ? `<td class="hit" title="${html(`${row.operationId} ${status}: exercised`)}">&#10003;</td>`
            : `<td class="miss" title="${html(`${row.operationId} ${status}: documented, not exercised`)}">&ndash;</td>`
        })
        .join('')
      const extra = row.undocumented.length > 0 ? html(row.undocumented.join(', ')) : ''
      return `<tr><td class="op"><code>${html(row.method)} ${html(row.path)}</code> ${html(row.operationId)}</td>${cells}<td>${extra}</td></tr>`
    })
    .join('\n')
  return `<section id="coverage">
<h2>API coverage</h2>
<p>${html(coverageFigure(coverage))} exercised by this run: every answer the run received, by the operation it was meant for and the status it came with.</p>
<p class="legend"><span>&#10003; exercised</span><span>&ndash; documented, not exercised</span><span>&middot; not documented for the operation</span></p>
<table class="matrix"><thead><tr><th class="op">operation</th>${head}<th>undocumented statuses received</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`
}

/**
 * The run as one self-contained HTML page (inline style, no script, no external asset): the verdict, what
 * the run cost, results by area with every failure laid out (expectation, request, response, curl; keys
 * redacted as in every report), and the coverage matrix of operations x documented statuses.
 */
export function toHtml(input: HtmlReportInput): string {
  const { entries, figures = {} } = input
  const failed = entries.some((e) => e.status === 'failed') || (input.notices?.length ?? 0) > 0
  const titles = input.areas ?? SUITE_AREA_TITLES
  const areaTitle = (area: string) => titles[area] ?? area
  const areas = areasIn(titles, entries)
  const title = input.title ?? 'Contract suite report'
  const stats = figures.stats
  const figureRows = [
    ['Checks', counts(entries) || 'none'],
    ['Duration', `${(input.durationMs / 1000).toFixed(1)} s`],
    ...(stats
      ? [
          [
            'Requests',
            `${stats.requests} sent to the API (${stats.counted} counted by its rate limit); ${stats.cacheHits} answered from the run's cache`,
          ],
          [
            'Waiting',
            stats.waits === 0
              ? 'none'
              : `${(stats.waitedMs / 1000).toFixed(1)} s in ${stats.waits} wait(s) for the rate limit`,
          ],
        ]
      : []),
    ...(figures.coverage ? [['Coverage', coverageFigure(figures.coverage)]] : []),
  ]
  const notices = (input.notices ?? []).map((n) => `<p class="verdict failed">${html(n)}</p>`).join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(title)}</title>
<style>${HTML_STYLE}</style>
</head>
<body>
<header>
<h1>${html(title)}</h1>
<p class="target">${html(input.header)}${input.generatedAt ? ` &middot; ${html(input.generatedAt.toISOString())}` : ''}</p>
<p class="verdict ${failed ? 'failed' : 'ok'}" id="verdict">${failed ? 'Failed' : 'Passed'}: ${html(counts(entries) || 'no check ran')}</p>
${notices}
<dl class="figures">
${figureRows.map(([k, v]) => `<dt>${html(k as string)}</dt><dd>${html(v as string)}</dd>`).join('\n')}
</dl>
<nav><ul>
${areas.map((a) => `<li><a href="#area-${html(a)}">${html(areaTitle(a))}</a></li>`).join('\n')}
${figures.coverage ? '<li><a href="#coverage">API coverage</a></li>' : ''}
</ul></nav>
</header>
<main>
${areas
  .map((a) =>
    areaSection(
      a,
      areaTitle(a),
      entries.filter((e) => e.area === a),
    ),
  )
  .join('\n')}
${figures.coverage ? coverageSection(figures.coverage) : ''}
</main>
</body>
</html>
`
}
