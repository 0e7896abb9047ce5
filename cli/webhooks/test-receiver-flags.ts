import { parseArgs } from 'node:util'
import { outputsOf } from '../contract/flags.ts'
import { argumentProblem, UsageError } from '../usage-error.ts'

/** `voice-api-kit webhooks test-receiver --help`. */
export const TEST_RECEIVER_HELP = `Usage: voice-api-kit webhooks test-receiver --url <receiver URL> --secret <whsec_...> [options]

Grades your webhook receiver as the platform delivers to it: sends it every event of the contract (call.started,
call.ended, transcript.ready, call.analyzed) signed per Standard Webhooks with your secret, deliveries it must
refuse and deliveries it must acknowledge, one at a time, and checks each answer.

  must refuse (a 4xx, not a 5xx, within the timeout): a signature that does not match, a body changed after
    signing, a timestamp 10 minutes in the past and 10 minutes ahead (outside the 5-minute tolerance), each of
    webhook-id, webhook-timestamp and webhook-signature missing, a signature made with a rotated-out secret
  must acknowledge (a 2xx within the timeout): several signatures of which one is valid, the same webhook-id
    twice, the events of one call out of order, an event type it does not know, a body not written as
    JSON.stringify writes it (the signature covers the raw bytes)
  a redirect always fails (the platform does not follow redirects)

Receiver:
  --url <url>                where the receiver listens (http:// or https://)
  --secret <whsec_...>       the signing secret it verifies with (VOICE_API_WEBHOOK_SECRET); never printed
  --previous-secret <whsec_...>
                             a secret it used before a rotation, which it must now refuse
                             (VOICE_API_WEBHOOK_PREVIOUS_SECRET; default: one made for the run)
  --timeout <s>              seconds it has to answer each delivery (default 10, the platform's timeout)

Report:
  --reporter <name>          summary (default), junit (JUnit XML), html (one self-contained page);
                             comma separated or repeated
  --output <file>            where junit or html writes (defaults receiver-results.xml, receiver-report.html);
                             with both: --output junit=<file> --output html=<file>
  -h, --help                 show this help

Exit code: 0 when every check passed; 1 when one failed, when nothing answered at the URL, or when a report
could not be written; 2 for a usage error (nothing is sent).`

export const RECEIVER_REPORTERS = ['summary', 'junit', 'html'] as const
export type ReceiverReporter = (typeof RECEIVER_REPORTERS)[number]

/** Where a file reporter writes unless `--output` says otherwise. */
export const RECEIVER_OUTPUTS = { junit: 'receiver-results.xml', html: 'receiver-report.html' } as const

export interface TestReceiverFlags {
  url: string
  secret: string
  previousSecret?: string
  timeoutMs?: number
  reporters: ReceiverReporter[]
  outputs: { junit?: string; html?: string }
}

/** Signing secrets are cut out of any message (an argument echoed by the parser, say). */
export const hideSecretText = (text: string) => text.replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_[redacted]')

/** Parses the command's flags and environment; `'help'` for --help. Throws UsageError for a bad flag. */
export function parseTestReceiverFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): TestReceiverFlags | 'help' {
  let values: Record<string, string | boolean | string[] | undefined>
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        secret: { type: 'string' },
        'previous-secret': { type: 'string' },
        timeout: { type: 'string' },
        reporter: { type: 'string', multiple: true },
        output: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }).values as typeof values
  } catch (error) {
    throw new UsageError(hideSecretText(argumentProblem(error)))
  }
  if (values.help) return 'help'
  const text = (name: string) => values[name] as string | undefined
  const url = text('url')
  if (!url)
    throw new UsageError(
      '--url is required: where your receiver listens, e.g. http://127.0.0.1:3000/webhooks.',
    )
  const secret = text('secret') ?? env.VOICE_API_WEBHOOK_SECRET
  if (!secret)
    throw new UsageError(
      '--secret (or VOICE_API_WEBHOOK_SECRET) is required: the whsec_... your receiver verifies with.',
    )
  const reporters = ((values.reporter as string[] | undefined) ?? []).flatMap((v) => v.split(','))
  for (const reporter of reporters)
    if (!(RECEIVER_REPORTERS as readonly string[]).includes(reporter))
      throw new UsageError(`--reporter must be ${RECEIVER_REPORTERS.join(', ')}, got '${reporter}'.`)
  const chosen = (reporters.length > 0 ? [...new Set(reporters)] : ['summary']) as ReceiverReporter[]
  let outputs: TestReceiverFlags['outputs']
  try {
    outputs = outputsOf((values.output as string[] | undefined) ?? [], chosen, RECEIVER_OUTPUTS)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  return {
    url,
    secret,
    previousSecret: text('previous-secret') ?? env.VOICE_API_WEBHOOK_PREVIOUS_SECRET,
    timeoutMs: timeoutOf(text('timeout')),
    reporters: chosen,
    outputs,
  }
}

/** `--timeout <s>`: seconds, more than 0 and at most 120 (decimals allowed). */
function timeoutOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
  if (!(seconds > 0 && seconds <= 120))
    throw new UsageError(`--timeout must be a number of seconds above 0 and at most 120, got '${value}'.`)
  return Math.round(seconds * 1000)
}
