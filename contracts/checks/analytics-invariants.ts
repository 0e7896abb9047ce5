/**
 * What the contract says analytics metrics are, checked on every analytics answer the run receives whatever the
 * check (the schema cannot say it): the sentiment counts add up to `analyzed_count` (SentimentCounts), each
 * average and `success_rate` is its quotient at the documented decimals and `null` exactly when its divisor is 0
 * (AnalyticsMetrics), the counts and totals of a series add up to its `totals`, and those of the groups to the
 * answer's (CallAnalytics: "counts and totals of the series add up to `totals`"), and every group has a call in
 * the range (getCallAnalytics, Grouping).
 */

type Metrics = Record<string, unknown> & { sentiment?: Record<string, unknown> }

/** Counts that add up over buckets and groups (sums of whole numbers). */
const COUNTS = [
  'call_count',
  'completed_count',
  'analyzed_count',
  'successful_count',
  'total_duration_seconds',
] as const

/** An average and what it divides, with the decimals it is given to. */
const QUOTIENTS = [
  { field: 'avg_duration_seconds', total: 'total_duration_seconds', count: 'completed_count', decimals: 2 },
  { field: 'avg_cost_usd', total: 'total_cost_usd', count: 'completed_count', decimals: 4 },
  { field: 'success_rate', total: 'successful_count', count: 'analyzed_count', decimals: 4 },
] as const

const num = (value: unknown) => (typeof value === 'number' ? value : undefined)

/** Fields given to a number of decimals (AnalyticsMetrics): the value written with more is another value. */
const DECIMALS = { total_cost_usd: 4, avg_cost_usd: 4, avg_duration_seconds: 2, success_rate: 4 } as const

/**
 * Whether `value` has at most `decimals` decimals as JSON gives it: the shortest text that reads back as the same
 * double (what JSON.stringify writes, and what any value rounded to `decimals` prints as), so 0.4218, not
 * 0.42179998755, and not a floating-point sum such as 2.8506000000000005.
 */
function withinDecimals(value: number, decimals: number): boolean {
  const [digits = '', exponent = '0'] = String(Math.abs(value)).split('e')
  const fraction = digits.split('.')[1]?.length ?? 0
  return fraction - Number(exponent) <= decimals
}

function metricsProblems(metrics: Metrics, where: string): string[] {
  const problems: string[] = []
  const sentiment = metrics.sentiment
  const analyzed = num(metrics.analyzed_count)
  if (sentiment && analyzed !== undefined) {
    const sum = ['positive', 'neutral', 'negative'].reduce((s, k) => s + (num(sentiment[k]) ?? 0), 0)
    if (sum !== analyzed)
      problems.push(`${where}: the sentiment counts add up to ${sum}, not to analyzed_count ${analyzed}`)
  }
  const [calls, completed, successful] = ['call_count', 'completed_count', 'successful_count'].map((k) =>
    num(metrics[k]),
  )
  if (calls !== undefined && completed !== undefined && completed > calls)
    problems.push(`${where}: completed_count ${completed} is more than call_count ${calls}`)
  if (analyzed !== undefined && successful !== undefined && successful > analyzed)
    problems.push(`${where}: successful_count ${successful} is more than analyzed_count ${analyzed}`)
  for (const [field, decimals] of Object.entries(DECIMALS)) {
    const value = num(metrics[field])
    if (value !== undefined && !withinDecimals(value, decimals))
      problems.push(`${where}: ${field} is given to ${decimals} decimals, got ${value}`)
  }
  for (const { field, total, count, decimals } of QUOTIENTS) {
    const [value, dividend, divisor] = [metrics[field], num(metrics[total]), num(metrics[count])]
    if (dividend === undefined || divisor === undefined) continue
    if (divisor === 0) {
      if (value !== null)
        problems.push(`${where}: ${field} must be null when ${count} is 0, got ${JSON.stringify(value)}`)
      continue
    }
    const exact = dividend / divisor
    // Rounded to `decimals`, whichever way a half goes: within half a unit of the last decimal, and of what the
    // dividend's own rounding moves the quotient (a cost total shown to 4 decimals, divided).
    const shown = total in DECIMALS ? (0.5 * 10 ** -DECIMALS[total as keyof typeof DECIMALS]) / divisor : 0
    if (typeof value !== 'number' || Math.abs(value - exact) > 0.5 * 10 ** -decimals + shown + 1e-9)
      problems.push(
        `${where}: ${field} must be ${total} / ${count} = ${exact} to ${decimals} decimals, got ${JSON.stringify(value)}`,
      )
  }
  return problems
}

/** Whether `parts` add up to `whole` in every count, the sentiment counts and the cost (to its 4 decimals). */
function sumProblems(parts: Metrics[], whole: Metrics, what: string): string[] {
  const problems: string[] = []
  for (const field of COUNTS) {
    const sum = parts.reduce((s, m) => s + (num(m[field]) ?? 0), 0)
    if (num(whole[field]) !== undefined && sum !== whole[field])
      problems.push(`${what}: ${field} adds up to ${sum}, not to ${String(whole[field])}`)
  }
  for (const key of ['positive', 'neutral', 'negative']) {
    const sum = parts.reduce((s, m) => s + (num(m.sentiment?.[key]) ?? 0), 0)
    const want = num(whole.sentiment?.[key])
    if (want !== undefined && sum !== want)
      problems.push(`${what}: sentiment.${key} adds up to ${sum}, not to ${want}`)
  }
  const cost = parts.reduce((s, m) => s + (num(m.total_cost_usd) ?? 0), 0)
  const want = num(whole.total_cost_usd)
  if (want !== undefined && Math.abs(cost - want) > 0.00005 * (parts.length + 1) + 1e-9)
    problems.push(`${what}: total_cost_usd adds up to ${cost}, not to ${want}`)
  return problems
}

interface Bucketed {
  totals?: Metrics
  series?: { metrics?: Metrics }[]
}

/** The problems of one analytics answer's body (empty when the metrics mean what the contract says). */
export function analyticsProblems(body: unknown): string[] {
  const answer = body as (Bucketed & { groups?: (Bucketed & { value?: unknown })[] | null }) | undefined
  if (!answer?.totals || !Array.isArray(answer.series)) return []
  const problems: string[] = []
  // CallAnalytics: "`groups` is an array exactly when `group_by` is not `null`" (a range without calls too).
  const groupBy = (answer as { group_by?: unknown }).group_by
  if (groupBy !== undefined && (groupBy === null) === Array.isArray(answer.groups))
    problems.push(
      `groups must be ${groupBy === null ? 'null' : 'an array'} when group_by is ${JSON.stringify(groupBy)}, got ${JSON.stringify(answer.groups)?.slice(0, 60)}`,
    )
  const whole = (scope: Bucketed, name: string) => {
    if (!scope.totals) return
    problems.push(...metricsProblems(scope.totals, `${name}totals`))
    const buckets = (scope.series ?? []).map((bucket) => bucket.metrics ?? {})
    buckets.forEach((metrics, i) => {
      problems.push(...metricsProblems(metrics, `${name}series[${i}]`))
    })
    if (buckets.length > 0) problems.push(...sumProblems(buckets, scope.totals, `${name}series`))
  }
  whole(answer, '')
  if (Array.isArray(answer.groups)) {
    answer.groups.forEach((group, i) => {
      whole(group, `groups[${i}] (${String(group.value)}) `)
      // getCallAnalytics, Grouping: "one entry per distinct value that has at least one call in the range".
      const calls = num(group.totals?.call_count)
      if (calls !== undefined && calls < 1)
        problems.push(
          `groups[${i}] (${String(group.value)}): call_count ${calls}, but a group is a value with at least one call in the range`,
        )
    })
    problems.push(
      ...sumProblems(
        answer.groups.map((group) => group.totals ?? {}),
        answer.totals,
        'the groups',
      ),
    )
  }
  return problems
}
