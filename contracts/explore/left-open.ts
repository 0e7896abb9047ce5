/**
 * What exploration does NOT compare between the target's answer and the model's, or compares more loosely
 * than "equal": every exception to the rules the comparison derives from the contract's schemas, each with
 * the contract sentence that makes it one. Everything else in a documented response (status, `error.type`,
 * `error.code`, every field of the body, every documented header) is compared: IDs through the mapping learnt
 * from the answers, `format: date-time` fields as instants to the second, arrays in order unless their items
 * are `uniqueItems` (a set). A new field or header in the contract is compared without any change here.
 */

/** How a field or header the table names is treated. */
export type Treatment =
  /** Never compared (the contract leaves the value to the implementation). */
  | 'skip'
  /** Only whether it is null (or absent) is compared, not its value. */
  | 'presence'
  /**
   * Compared as it is where the model's value is one that a rule fixes (`fixed`: a call that never connected costs
   * 0), and by presence elsewhere (the value is the implementation's).
   */
  | 'fixed-values'
  /** An array compared as a set: its order is the implementation's. */
  | 'any-order'
  /**
   * An array compared as a set, the target's in the contract's order (`order`) on its own values: a rule whose
   * ties fall to values each implementation draws for itself (IDs), so the two sides' orders may differ.
   */
  | 'ordered-by'
  /** A number of seconds compared within one second either way. */
  | 'within-a-second'
  /** A `Bearer` challenge: the scheme is compared, not its parameters. */
  | 'challenge'
  /** A URI reference (absolute or relative) compared by the object it names. */
  | 'reference'
  /** The IETF `RateLimit` field: `r` compared exactly, `t` within a second. */
  | 'rate-limit'

/** One exception: where it applies, how, and the contract's words for it. */
export interface LeftOpen {
  /** A schema place (`#/components/schemas/...`), or `header <name>` (lower case). */
  where: string
  treatment: Treatment
  /** The sentence of the contract (or of a decision page) that leaves it open. */
  because: string
  /** For `fixed-values`: the values a rule fixes. */
  fixed?: readonly unknown[]
  /** For `ordered-by`: the item fields (dotted paths) the array is sorted by, in turn (ascending by default). */
  order?: readonly { field: string; descending?: boolean }[]
}

/** The one table of exceptions. */
export const LEFT_OPEN: readonly LeftOpen[] = [
  {
    where: '#/components/schemas/Error/properties/error/properties/message',
    treatment: 'skip',
    because:
      'openapi/v1.yaml, Errors: "`message` is for humans and may change; branch on `type` and `code`."',
  },
  {
    where: '#/components/schemas/Error/properties/error/properties/param',
    treatment: 'skip',
    because:
      'openapi/v1.yaml, Errors: "`param` (where the table names it) and `request_id` are optional: the mock always sends them, an implementation may leave them out." (docs/decisions/011-allowed-forms.md)',
  },
  {
    where: '#/components/schemas/Error/properties/error/properties/request_id',
    treatment: 'skip',
    because:
      'openapi/v1.yaml, Errors: "`request_id` [is] optional" and, when present, equals the Request-Id header, which is unique to each answer.',
  },
  {
    where: '#/components/schemas/Error/properties/error/properties/errors',
    treatment: 'any-order',
    because: 'UnprocessableEntity: "Every problem is listed in `errors` (order not significant)".',
  },
  {
    where: '#/components/schemas/FieldError/properties/message',
    treatment: 'skip',
    because: 'openapi/v1.yaml, Errors: "`message` is for humans and may change".',
  },
  {
    where: '#/components/schemas/FieldError/properties/code',
    treatment: 'skip',
    because:
      'FieldError.code names one kind of problem per code; a value that breaks two rules (a string too long for its pattern) may be reported under either, so only the fields named (`param`) are compared.',
  },
  {
    where: '#/components/schemas/Error/properties/error/properties/retry_after',
    treatment: 'within-a-second',
    because:
      'TooManyRequests: "`error.retry_after` equals the `Retry-After` header", whole seconds rounded up: a window counted by the millisecond and one counted by the second differ by one at most.',
  },
  {
    where: '#/components/schemas/CallAnalytics/properties/groups',
    treatment: 'ordered-by',
    order: [{ field: 'totals.call_count', descending: true }, { field: 'value' }],
    because:
      'getCallAnalytics: groups are "ordered by `totals.call_count` descending then `value` ascending": with `group_by=agent_id` a tie is broken by agent IDs, which each implementation draws for itself, so the groups are compared as a set and the target\'s checked in that order on its own values.',
  },
  {
    where: '#/components/schemas/IntegrationList/properties/data',
    treatment: 'any-order',
    because:
      'listIntegrations: "its order is the implementation\'s choice" (docs/decisions/011-allowed-forms.md).',
  },
  ...['transcript', 'analysis'].flatMap((field) =>
    // The list's summaries have no transcript.
    (field === 'transcript' ? ['CallLog'] : ['CallLog', 'CallLogSummary']).map((schema) => ({
      where: `#/components/schemas/${schema}/properties/${field}`,
      treatment: field === 'analysis' ? ('presence' as const) : ('skip' as const),
      because:
        "mock-control.yaml, startCall: a simulated call carries \"a conversation of the agent's kind, from the seed's scripts\": what was said and its analysis are the target's simulation, not a rule of v1.",
    })),
  ),
  // Who ended a call that connected, and its price, are the simulation's; the control plane fixes the rest.
  ...['CallLog', 'CallLogSummary'].flatMap((schema) => [
    {
      where: `#/components/schemas/${schema}/properties/cost_usd`,
      treatment: 'fixed-values' as const,
      fixed: [0, null],
      because:
        'mock-control.yaml, startCall: a call\'s price is the simulation\'s, but the outcomes that never connect have "`cost_usd` 0", and a call not ended has none yet.',
    },
    {
      where: `#/components/schemas/${schema}/properties/end_reason`,
      treatment: 'fixed-values' as const,
      fixed: [null, 'error', 'max_duration_reached'],
      because:
        'mock-control.yaml, startCall: who ended a connected call is the simulation\'s, but the outcomes that never connect have "`end_reason` `error` for `failed`, `null` otherwise", and a call "capped at the agent\'s `max_call_duration_seconds`" has "`end_reason: max_duration_reached`".',
    },
  ]),
  ...['CallLog', 'CallLogSummary'].map((schema) => ({
    where: `#/components/schemas/${schema}/properties/recording_url`,
    treatment: 'presence' as const,
    because:
      'CallLog.recording_url: "Recording of the call; `null` when recording was disabled or the call has not ended": whether there is one is fixed, the URL is the implementation\'s.',
  })),
  ...['successful_count', 'total_cost_usd', 'avg_cost_usd', 'sentiment'].map((field) => ({
    where: `#/components/schemas/AnalyticsMetrics/properties/${field}`,
    treatment: 'skip' as const,
    because:
      'AnalyticsMetrics: costs, analyses and sentiments add up what the simulated calls said and cost (mock-control.yaml, startCall: "a conversation ... from the seed\'s scripts"), the target\'s own data.',
  })),
  // Which calls were analyzed is fixed (a call log's `analysis` is compared for presence), so `analyzed_count` is
  // compared; what the analyses found is the target's own.
  {
    where: '#/components/schemas/AnalyticsMetrics/properties/success_rate',
    treatment: 'presence',
    because:
      'AnalyticsMetrics.success_rate: "`successful_count / analyzed_count` ... `null` when nothing was analyzed": whether there is a rate is fixed, its value comes from what the simulated calls said (mock-control.yaml, startCall).',
  },
  {
    where: 'header request-id',
    treatment: 'skip',
    because: 'Request-Id: "Unique ID of this request".',
  },
  {
    where: 'header www-authenticate',
    treatment: 'challenge',
    because:
      'WWW-Authenticate: "RFC 6750 `Bearer` challenge; its `realm` and `error` parameters are optional" (docs/decisions/011-allowed-forms.md).',
  },
  {
    where: 'header location',
    treatment: 'reference',
    because:
      'Location: "an absolute URL or a reference relative to the request\'s URL (RFC 9110)" (docs/decisions/011-allowed-forms.md).',
  },
  {
    where: 'header allow',
    treatment: 'any-order',
    because:
      'Allow: "The methods documented for this path, comma separated": which methods, compared as a set.',
  },
  {
    where: 'header ratelimit',
    treatment: 'rate-limit',
    because:
      'RateLimit: "`t` is the whole seconds (rounded up) until the oldest request counted in that window leaves it": a window counted by the millisecond and one counted by the second differ by one at most; `r` is exact.',
  },
  {
    where: 'header x-ratelimit-reset',
    treatment: 'within-a-second',
    because: 'X-RateLimit-Reset: "current time + that window\'s `t`", so within a second as `t` is.',
  },
  {
    where: 'header retry-after',
    treatment: 'within-a-second',
    because:
      'Retry-After: "the largest `t` among the exhausted windows, rounded up", so within a second as `t` is.',
  },
]

const byPlace = new Map(LEFT_OPEN.map((entry) => [entry.where, entry]))

/** The exception for a schema place or a header, if the table has one. */
export function leftOpen(where: string): LeftOpen | undefined {
  return byPlace.get(where)
}
