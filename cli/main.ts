#!/usr/bin/env node
import { MOCK_HELP, parseMockFlags, startMock } from './mock/mock-command.ts'
import { stopWithNpm } from './mock/stop-with-npm.ts'
import { PrismMissing, runPrismMock, runPrismProxy } from './prism/prism-command.ts'
import { UsageError, withHint } from './usage-error.ts'

const HELP = `Usage: voice-api-kit <command> [options]

Commands:
  mock       start the stateful mock server with a seeded demo account (voice-api-kit mock --help)
  contract   run the contract suite against an implementation (voice-api-kit contract --help)
  webhooks   test your webhook receiver: voice-api-kit webhooks test-receiver --url <url> --secret <whsec_...>
             (voice-api-kit webhooks test-receiver --help)
  prism      Prism's stateless mock of the same contract (needs @stoplight/prism-cli)
  proxy      Prism's validation proxy in front of any implementation (needs @stoplight/prism-cli)

Run 'voice-api-kit <command> --help' for a command's options.`

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    console.log(HELP)
    return command === undefined ? 2 : 0
  }
  if (command === 'mock') {
    const flags = parseMockFlags(rest)
    if (flags === 'help') {
      console.log(MOCK_HELP)
      return 0
    }
    const running = await startMock(flags)
    let stopping = false
    const stop = (why: string) => {
      if (stopping) return
      stopping = true
      console.log(`\n${why}: stopping the mock.`)
      running.close().then(() => process.exit(0))
      setTimeout(() => process.exit(0), 2000).unref()
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
    stopWithNpm(() => stop('npm, which started the mock, has stopped'))
    return -1
  }
  if (command === 'contract') {
    const { runContractCommand } = await import('./contract/contract-command.ts')
    return runContractCommand(rest)
  }
  if (command === 'webhooks') {
    const { runWebhooksCommand } = await import('./webhooks/webhooks-command.ts')
    return runWebhooksCommand(rest)
  }
  if (command === 'prism') return runPrismMock(rest)
  if (command === 'proxy') return runPrismProxy(rest)
  throw new UsageError(`Unknown command '${command}'. Commands: mock, contract, webhooks, prism, proxy.`)
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`voice-api-kit: ${withHint(error.message, 'See --help.')}`)
      process.exitCode = 2
    } else if (error instanceof PrismMissing) {
      console.error(`voice-api-kit: ${error.message}`)
      process.exitCode = 1
    } else {
      console.error(`voice-api-kit: ${error instanceof Error ? error.message : String(error)}`)
      process.exitCode = 1
    }
  },
)
