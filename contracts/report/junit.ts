import { type AreaTitles, SUITE_AREA_TITLES } from './area-titles.ts'
import type { ReportEntry } from './entries.ts'

const escapeXml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')

const seconds = (ms: number) => (ms / 1000).toFixed(3)

/**
 * JUnit XML for CI: one `<testsuite>` per area, one `<testcase>` per check (classname = area and group);
 * a failure carries the whole report (request, response, expectation, curl); a skip carries its reason.
 * `titles` names the areas (the suite's by default).
 */
export function toJUnit(
  entries: readonly ReportEntry[],
  name: string,
  durationMs: number,
  titles: AreaTitles = SUITE_AREA_TITLES,
): string {
  const areas = [...new Set(entries.map((e) => e.area))]
  const count = (list: readonly ReportEntry[], status: string) =>
    list.filter((e) => e.status === status).length
  const skippedOf = (list: readonly ReportEntry[]) => count(list, 'skipped') + count(list, 'not-applicable')
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(name)}" tests="${entries.length}" failures="${count(entries, 'failed')}" errors="0" skipped="${skippedOf(entries)}" time="${seconds(durationMs)}">`,
  ]
  for (const area of areas) {
    const mine = entries.filter((e) => e.area === area)
    const title = titles[area] ?? area
    const time = mine.reduce((sum, e) => sum + e.durationMs, 0)
    lines.push(
      `  <testsuite name="${escapeXml(title)}" tests="${mine.length}" failures="${count(mine, 'failed')}" errors="0" skipped="${skippedOf(mine)}" time="${seconds(time)}">`,
    )
    for (const e of mine) {
      const open = `    <testcase classname="${escapeXml(`${title}.${e.group}`)}" name="${escapeXml(e.title)}" time="${seconds(e.durationMs)}"`
      if (e.status === 'passed') {
        lines.push(`${open}/>`)
        continue
      }
      lines.push(
        `${open}>`,
        `      <properties><property name="check" value="${escapeXml(e.id)}"/></properties>`,
      )
      if (e.status === 'failed') {
        const message = (e.failure ?? '').split('\n').slice(0, 2).join(' ')
        lines.push(
          `      <failure message="${escapeXml(message)}" type="ContractViolation">${escapeXml(e.failure ?? '')}</failure>`,
        )
      } else {
        const prefix = e.status === 'not-applicable' ? 'not applicable: ' : ''
        const reason = e.reason?.startsWith('not applicable') ? e.reason : `${prefix}${e.reason ?? ''}`
        lines.push(`      <skipped message="${escapeXml(reason)}"/>`)
      }
      lines.push('    </testcase>')
    }
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>', '')
  return lines.join('\n')
}
