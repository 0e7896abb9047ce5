import { redactText } from '../http/exchange.ts'
import type { Difference } from './compare-answers.ts'
import type { FoundDifference } from './explore.ts'
import { isObject } from './is-object.ts'
import type { Interaction } from './sequence.ts'
import type { SideAnswer, SideRequest } from './sides.ts'

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text
const indent = (text: string, by: string) =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n')

/** Request headers worth showing (the key is shown by its role, in the title). */
const SHOWN_HEADERS = ['content-type', 'idempotency-key', 'origin']
/** Answer headers worth showing besides those that differ. */
const ANSWER_HEADERS = ['location', 'idempotent-replayed', 'retry-after', 'ratelimit', 'allow']

/** The keys the setup made, by role, with what sets them apart. */
function describeKeys(found: FoundDifference, setup: FoundDifference['setup']): string {
  const detail: Partial<Record<string, string>> = {
    read: 'the read scopes',
    'no-scope': 'no scope',
    revoked: 'revoked',
    expiring: `expiring ${setup.expiresIn} s after the setup`,
    origin: 'bound to the origin https://explore.example',
    'other-secret': 'of the other account',
    'other-revoked': 'of the other account, revoked',
  }
  const described = (role: string) =>
    detail[role]
      ? `${role} (${detail[role]})`
      : role.startsWith('lacking-')
        ? `${role} (every scope but ${role.slice(8)})`
        : role.startsWith('only-')
          ? `${role} (a secret key with ${role.slice(5)} alone)`
          : role
  return (found.records[0]?.keys ?? []).map(described).join(', ')
}

/** The differing step of a found difference (the last exchange that has differences). */
export function differingExchange(found: FoundDifference) {
  for (const record of [...found.records].reverse())
    for (const exchange of [...record.exchanges].reverse())
      if (exchange.differences.length > 0) return { record, exchange }
  return undefined
}

function summary(answer: SideAnswer): string {
  const body = answer.body
  const error = isObject(body) && isObject(body.error) ? body.error : undefined
  if (error) return `${answer.status} ${String(error.type)}/${String(error.code)}`
  if (isObject(body) && Array.isArray(body.data))
    return `${answer.status} list of ${body.data.length}${body.has_more === true ? ', has_more' : ''}${
      body.data.length > 0 ? `: ${body.data.map((d) => (isObject(d) ? String(d.id) : '?')).join(', ')}` : ''
    }`
  if (isObject(body) && typeof body.id === 'string')
    return `${answer.status} ${String(body.object ?? 'object')} ${body.id}${body.deleted === true ? ' deleted' : ''}`
  return String(answer.status)
}

function requestLines(request: SideRequest): string[] {
  const lines: string[] = []
  const headers = SHOWN_HEADERS.filter((h) => request.headers[h] !== undefined).map(
    (h) => `${h}: ${request.headers[h]}`,
  )
  if (headers.length > 0) lines.push(`headers: ${headers.join('; ')}`)
  if (request.body !== undefined) lines.push(`body: ${clip(request.body, 600)}`)
  return lines
}

function answerLines(label: string, answer: SideAnswer, full: boolean, differences: Difference[]): string[] {
  const lines = [`${label}: ${summary(answer)}`]
  if (!full) return lines
  const names = new Set([
    ...ANSWER_HEADERS,
    ...differences.filter((d) => d.at.startsWith('header ')).map((d) => d.at.slice(7)),
  ])
  for (const name of names)
    if (answer.headers[name] !== undefined) lines.push(`  ${name}: ${answer.headers[name]}`)
  if (answer.text !== '') lines.push(`  ${clip(answer.text, 1500)}`)
  return lines
}

/**
 * The shrunk sequence as numbered steps: for each request, what was sent, the target's answer and the model's;
 * at the step that differs, both answers in full, each difference and the contract's place and sentence that
 * decide between them. Key values never appear (keys are named by their role; `secrets` are redacted).
 */
export function formatSteps(found: FoundDifference, seed: number, secrets: Iterable<string>): string {
  const differing = differingExchange(found)
  const setup = found.setup
  const lines = [
    `Seed ${seed}; the sequence was shrunk from ${found.originalSteps} to ${found.shrunkSteps} step(s) and replayed: the difference happened again.`,
    `Setup, the same on both sides: an account on the ${setup.plan} plan (${
      setup.limits
        ? `quotas ${setup.limits.hourly} per hour, ${setup.limits.burst} per minute`
        : "the plan's quotas"
    }) and another account, each with the objects of the setup's requests below; keys ${describeKeys(found, setup)}.`,
  ]
  for (const record of found.records) {
    const label = record.number === 0 ? 'Setup' : `${record.number}.`
    if (record.number > 0) lines.push('', `${label} ${record.title}`)
    if (record.note) lines.push(`   (${record.note})`)
    for (const exchange of record.exchanges) {
      const isDiffering = differing?.exchange === exchange
      if (record.number === 0 && !isDiffering) {
        lines.push(
          `   ${exchange.title}: target ${summary(exchange.target)}, model ${summary(exchange.model)}`,
        )
        continue
      }
      if (exchange.title !== record.title) lines.push(`   ${exchange.title}`)
      for (const line of requestLines(exchange.request)) lines.push(`   ${line}`)
      for (const line of answerLines('target', exchange.target, isDiffering, exchange.differences))
        lines.push(`   ${line}`)
      for (const line of answerLines('model ', exchange.model, isDiffering, exchange.differences))
        lines.push(`   ${line}`)
      if (exchange.note) lines.push(`   (not compared: ${exchange.note})`)
      for (const d of exchange.differences)
        lines.push(
          `   differs at ${d.at}: target ${d.target}, model ${d.model}`,
          `     decided by ${d.decidedBy}`,
        )
    }
  }
  return redactText(lines.join('\n'), secrets)
}

// ------------------------------------------------------------------------------------------ the script

/**
 * An ID as the contract shapes them (`agt_...`), told from the contract's own words that also hold an underscore
 * (an integration's slug `google_calendar`, an object type `team_member`, a status `not_connected`) by a digit or
 * a capital in what follows the prefix: generated IDs have them; the contract's words never do.
 */
const ID_SHAPE = /^[a-z]+_(?=[a-z]*[A-Z0-9])[A-Za-z0-9]+$/
/** An instant in a request (in a query its colons are percent-encoded). */
const INSTANT = /\d{4}-\d\d-\d\dT\d\d(?::|%3A)\d\d(?::|%3A)\d\d(?:\.\d+)?Z/
const KEY_SHAPE = /^[sp]k-svc-[A-Za-z0-9]{16,}$/

/** A single-quoted shell word. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/** The places (dotted paths) of the ID-shaped and key-shaped strings of an answer, first one first. */
function placesOf(value: unknown, at = ''): [string, string][] {
  if (typeof value === 'string') return ID_SHAPE.test(value) || KEY_SHAPE.test(value) ? [[value, at]] : []
  if (Array.isArray(value)) return value.flatMap((item, i) => placesOf(item, at ? `${at}.${i}` : String(i)))
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => placesOf(v, at ? `${at}.${k}` : k))
  return []
}

const SCRIPT_HEAD = `set -eu
BASE="\${VOICE_API_BASE_URL:-http://127.0.0.1:4010/v1}"
CONTROL="\${VOICE_API_MOCK_CONTROL_URL:-\${BASE%/v1}/_mock}"
OUT="$(mktemp -d)"
# json <file> <dotted path>: one value of a JSON answer
json() { node -e 'let v=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));for(const k of process.argv[2].split("."))v=v==null?v:v[k];process.stdout.write(String(v))' "$1" "$2"; }
# control <name> <method> <path> [curl arguments]: the control plane (the simulated dashboard)
control() {
  name=$1; method=$2; path=$3; shift 3
  if [ -n "\${VOICE_API_MOCK_ADMIN_TOKEN:-}" ]; then set -- -H "Authorization: Bearer $VOICE_API_MOCK_ADMIN_TOKEN" "$@"; fi
  curl -sS -X "$method" "$CONTROL$path" -o "$OUT/$name.json" "$@"
}
# api <name> <method> <path> [curl arguments]: a v1 request; prints the answer's head and body
api() {
  name=$1; method=$2; path=$3; shift 3
  if [ "$method" = HEAD ]; then set -- -I "$@"; else set -- -X "$method" "$@"; fi
  curl -sS "$BASE$path" -D "$OUT/$name.head" -o "$OUT/$name.json" "$@"
  cat "$OUT/$name.head" "$OUT/$name.json"; echo
}
NOBODY_KEY="sk-svc-$(printf '0Explore%.0s' 1 2 3 4 5)"
# shifted <instant>: the moment that was as far from the run's clock as it is now from the target's
epoch() { node -e 'process.stdout.write(String(Math.floor(Date.parse(process.argv[1])/1000)))' "$1"; }
shifted() { node -e 'process.stdout.write(new Date(Date.parse(process.argv[1])+Number(process.argv[2])*1000).toISOString().replace(".000Z","Z"))' "$1" "$DELTA"; }
control clock GET /clock`

/**
 * The same sequence as a runnable POSIX shell script (curl and node): the accounts and keys made through the
 * control plane, then each step, printing every answer. Key values and IDs are taken from the answers into
 * variables (`$EXPLORE_KEY_SECRET`, `$AGT_1`): no key value is ever written in it.
 */
export function formatScript(found: FoundDifference, seed: number, secrets: Iterable<string>): string {
  const names = new Map<string, string>()
  const counters = new Map<string, number>()
  const started = found.records[0]?.clock
  const lines = [
    '#!/bin/sh',
    `# voice-api-kit contract --area explore --seed ${seed}: the difference it found, as a script.`,
    '# Replays the setup and the steps against VOICE_API_BASE_URL (default the local mock) and prints each',
    '# answer; compare the last one with what the model answered (in the report). Needs curl and node.',
    SCRIPT_HEAD,
    `DELTA=$(( $(epoch "$(json "$OUT/clock.json" now)") - ${Math.floor(Date.parse(started ?? '1970-01-01T00:00:00Z') / 1000)} ))`,
  ]
  const word = (text: string): string => {
    const known = [...names.keys()]
      .filter((value) => text.includes(value))
      .sort((a, b) => b.length - a.length)
    const alternatives = [...known.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), INSTANT.source]
    const pattern = new RegExp(alternatives.join('|'), 'g')
    const parts: string[] = []
    let last = 0
    for (const match of text.matchAll(pattern)) {
      const at = match.index ?? 0
      if (at > last) parts.push(quote(text.slice(last, at)))
      const name = names.get(match[0])
      parts.push(name ? `"$${name}"` : `"$(shifted ${quote(decodeURIComponent(match[0]))})"`)
      last = at + match[0].length
    }
    if (last < text.length || parts.length === 0) parts.push(quote(text.slice(last)))
    return parts.join('')
  }
  names.set('sk-svc-0Explore0Explore0Explore0Explore0Explore', 'NOBODY_KEY')
  const capture = (file: string, interaction: Interaction) => {
    for (const [value, place] of placesOf(interaction.answer)) {
      if (names.has(value)) continue
      let name: string
      if (KEY_SHAPE.test(value)) {
        const role =
          /^explore (.+)$/.exec(
            String((JSON.parse(interaction.body ?? '{}') as { name?: unknown }).name ?? ''),
          )?.[1] ?? 'key'
        name = `EXPLORE_KEY_${role.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`
      } else {
        const prefix = value.slice(0, value.indexOf('_')).toUpperCase()
        const n = (counters.get(prefix) ?? 0) + 1
        counters.set(prefix, n)
        name = `${prefix === 'USR' ? 'ACCOUNT' : prefix}_${n}`
      }
      names.set(value, name)
      lines.push(`${name}=$(json "$OUT/${file}.json" ${quote(place)})`)
    }
  }
  let setupCount = 0
  const accounts: string[] = []
  for (const record of found.records) {
    lines.push('', record.number === 0 ? '# Setup' : `echo ${quote(`--- ${record.number}. ${record.title}`)}`)
    let part = 0
    const waiting: [string, Interaction][] = []
    for (const interaction of record.interactions) {
      const file =
        record.number === 0 ? `s${++setupCount}` : `${record.number}${part++ === 0 ? '' : `-${part}`}`
      const args: string[] = []
      const command = interaction.plane === 'v1' ? 'api' : 'control'
      for (const [name, value] of Object.entries(interaction.headers)) {
        if (name === 'authorization') {
          const token = value.replace(/^Bearer\s+/i, '')
          args.push('-H', `"Authorization: Bearer $${names.get(token) ?? 'NOBODY_KEY'}"`)
        } else args.push('-H', word(`${name}: ${value}`))
      }
      if (interaction.body !== undefined) {
        if (interaction.plane === 'control') args.push('-H', quote('content-type: application/json'))
        args.push('--data-raw', word(interaction.body))
      }
      // Requests sent at once go to the background together; what they answered is read once all are back.
      const together = record.together === true && interaction.plane === 'v1'
      lines.push(
        `${command} ${file} ${interaction.method} ${word(interaction.path)}${args.length ? ` ${args.join(' ')}` : ''}${together ? ' &' : ''}`,
      )
      if (together) waiting.push([file, interaction])
      else capture(file, interaction)
      if (interaction.plane === 'control' && interaction.path === '/accounts') {
        const id = isObject(interaction.answer) ? String(interaction.answer.id) : ''
        if (names.has(id)) accounts.push(names.get(id) as string)
      }
    }
    if (waiting.length > 0) lines.push('wait')
    for (const [file, interaction] of waiting) capture(file, interaction)
  }
  lines.push('', '# Clean up: the accounts go with their keys and data')
  for (const [i, account] of accounts.entries())
    lines.push(`control z${i + 1} DELETE "/accounts/$${account}"`)
  lines.push('rm -rf "$OUT"')
  return redactText(lines.join('\n'), secrets)
}

/** The difference in one line: the step, the request and where the answers differ. */
export function differenceLine(found: FoundDifference): string {
  const differing = differingExchange(found)
  if (!differing) return 'a difference'
  const first = differing.exchange.differences[0] as Difference
  return `at step ${differing.record.number} (${differing.exchange.title}), ${first.at}: target ${first.target}, model ${first.model}`
}

export { indent }
