import type { RatioSpread } from './ratios.ts'
import type { BenchResults, ServerName } from './results.ts'

const SERVER_LABEL: Record<ServerName, string> = {
  mock: 'mock',
  prism: 'prism mock',
  bare: 'bare node:http',
}

const num = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** A ratio's spread over the rounds, `1.02-1.31x`. */
const spreadOf = (ratio: RatioSpread) => `${num(ratio.min, 2)}-${num(ratio.max, 2)}x`

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n')
}

/** The figures as Markdown: the tables the README shows. */
export function formatMarkdown(results: BenchResults): string {
  const { settings, machine } = results
  const out: string[] = []
  out.push(
    `Command: \`${results.command}\` (${results.date}; Node ${machine.node}, ${machine.cpus} CPUs ${machine.cpuModel}; ` +
      `autocannon ${settings.connections} connections, ${settings.durationSec} s per case and server in ${settings.rounds} rotating rounds after ${settings.warmupSec} s warm-up; ` +
      `mock entry: ${settings.mockEntry})`,
  )
  out.push(
    `Load average of the machine (1 min) at start and end: ${machine.loadAverage.map((l) => l.toFixed(2)).join(' and ')} ` +
      '(other jobs share it; every ratio below comes from servers measured in the same run).',
  )
  if (results.load.length > 0)
    out.push('', '### Throughput and latency (authenticated, rate limits lifted)', '')
  const rows: string[][] = []
  for (const row of results.load) {
    for (const name of ['mock', 'prism', 'bare'] as const) {
      const figures = row.servers[name]
      if (!figures) continue
      const failed = figures.non2xx + figures.errors
      rows.push([
        row.label,
        SERVER_LABEL[name],
        num(figures.requestsPerSec),
        num(figures.p50Ms, 2),
        num(figures.p99Ms, 2),
        num(figures.cpuUsPerRequest),
        num(figures.rssMb),
        failed > 0 ? `${failed} non-2xx/errors` : '',
      ])
    }
    rows.push([
      '',
      '**mock / Prism, mock / bare**',
      `**${num(row.ratios.mockOverPrism.median, 2)}x, ${num(row.ratios.mockOverBare.median, 2)}x**`,
      '',
      '',
      '',
      '',
      [`rounds: ${spreadOf(row.ratios.mockOverPrism)} and ${spreadOf(row.ratios.mockOverBare)}`, row.note]
        .filter(Boolean)
        .join('; '),
    ])
  }
  if (rows.length > 0)
    out.push(table(['request', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MB', 'note'], rows))

  if (results.startup.length > 0) {
    out.push('', '### Process start to first 200 (authenticated GET /agents)', '')
    out.push(
      table(
        ['server', 'median ms', 'min ms', 'runs', 'note'],
        results.startup.map((s) => [
          s.label,
          num(s.medianMs),
          num(s.minMs),
          String(s.runsMs.length),
          s.note ?? '',
        ]),
      ),
    )
  }
  if (results.list) {
    const { list } = results
    out.push(
      '',
      `### ${num(list.callLogs)} seeded call logs: list pages (limit ${list.pageLimits.join(' and ')}) at random cursors`,
      '',
      `Seeded in ${num(list.seedMs)} ms; RSS ${num(list.rssMb)} MB after a GC (heap ${num(list.heapUsedMb)} MB; ` +
        `${num(list.rssAfterRequestsMb)} MB after the requests). ${list.agents} agents.`,
      '',
    )
    out.push(
      table(
        [
          'page',
          'in-process p50 ms',
          'in-process p99 ms',
          'HTTP p50 ms',
          'HTTP p99 ms',
          'HTTP server-side p50 ms',
          'HTTP server-side p99 ms',
        ],
        list.kinds.map((k) => [
          k.kind,
          num(k.inProcess.p50, 3),
          num(k.inProcess.p99, 3),
          num(k.http.p50, 3),
          num(k.http.p99, 3),
          num(k.httpServerSide.p50, 3),
          num(k.httpServerSide.p99, 3),
        ]),
      ),
    )
  }
  if (results.storage) {
    const { embedded, shared, sharedSkipped } = results.storage
    out.push('', '### State stores', '')
    out.push(
      table(
        [
          'store',
          'call logs',
          'write p50 ms',
          'write p99 ms',
          'read p99 ms alone',
          'read p99 ms with writes',
          'log KiB per write',
          'open ms',
        ],
        embedded.map((e) => [
          e.store === 'file' ? 'file (--state-file)' : 'memory',
          num(e.callLogs),
          num(e.write.p50, 3),
          num(e.write.p99, 3),
          num(e.readAlone.p99, 3),
          num(e.readWithWrites.p99, 3),
          e.store === 'file' ? num(e.logKbPerWrite, 2) : '',
          num(e.openMs),
        ]),
      ),
    )
    out.push(
      '',
      'Writes: sequential POST /v1/agents and DELETE of the agent it made, in turn, in-process, each answered once durable (fsync); reads: GET /v1/agents, alone and while a writer writes.',
    )
    if (shared.length > 0) {
      out.push(
        '',
        `GET /v1/agents with ${results.settings.connections} connections shared by every process, all driven at once:`,
        '',
      )
      out.push(
        table(
          ['store', 'processes', 'req/s (all)', 'p50 ms', 'p99 ms', 'non-2xx'],
          shared.map((s) => [
            s.label,
            String(s.processes),
            num(s.requestsPerSec),
            num(s.p50Ms, 2),
            num(s.p99Ms, 2),
            num(s.non2xx),
          ]),
        ),
      )
    } else if (sharedSkipped) out.push('', `Redis: skipped (${sharedSkipped}).`)
  }
  if (results.msw) {
    const { mock, trivial, costRatio, wallRatio } = results.msw
    out.push('', '### In-process: MSW setupServer, sequential fetch of GET /v1/agents', '')
    out.push(
      table(
        ['handler', 'req/s', 'CPU µs/req', 'p50 ms', 'p99 ms', 'requests'],
        [
          ['the mock (createMockApi defaults, responses checked)', mock, 'mock'] as const,
          ['a trivial handler sending the same bytes and headers', trivial, 'trivial'] as const,
        ].map(([label, side]) => [
          label,
          num(side.requestsPerSec),
          num(side.cpuUsPerRequest),
          num(side.p50Ms, 3),
          num(side.p99Ms, 3),
          num(side.requests),
        ]),
      ),
    )
    out.push(
      '',
      `Per request, mock / trivial handler: CPU time **${num(costRatio.median, 2)}x** (rounds ${spreadOf(costRatio)}), wall time ${num(wallRatio.median, 2)}x (rounds ${spreadOf(wallRatio)}); medians of ${costRatio.rounds.length} rounds in alternating order, each side in its own process.`,
    )
  }
  if (results.contract) {
    out.push('', '### Other figures', '')
    const rows: string[][] = []
    if (results.contract)
      rows.push([
        'contract suite, full run against the local mock',
        results.contract.status === 'ran'
          ? `${num((results.contract.wallMs ?? 0) / 1000, 1)} s wall (${results.contract.note})`
          : `skipped: ${results.contract.note}`,
      ])
    out.push(table(['measurement', 'result'], rows))
  }
  if (results.comparison) {
    const { against, rows } = results.comparison
    out.push(
      '',
      `### Against the committed figures (${against.date}, load ${against.loadAverage.map((l) => l.toFixed(2)).join(' and ')})`,
      '',
    )
    out.push(
      table(
        ['ratio', 'committed', 'now', 'change', 'fell by more than 10%'],
        rows.map((row) => [
          row.ratio,
          num(row.committed, 2),
          num(row.now, 2),
          `${row.change >= 0 ? '+' : ''}${num(row.change * 100, 1)}%`,
          row.fell ? '**yes**' : 'no',
        ]),
      ),
    )
  }
  out.push('', '### Targets', '')
  out.push(
    table(
      ['target', 'measured', 'met'],
      results.targets.map((t) => [t.target, t.measured, t.met === null ? 'n/a' : t.met ? 'yes' : '**no**']),
    ),
  )
  return `${out.join('\n')}\n`
}
