import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createProject,
  currentRuntime,
  diskUsageKiB,
  meaningful,
  packPackage,
  type Runtime,
  registryRuntime,
  runIn,
  type StartedMock,
  startInstalledMock,
} from './support/consumer-project.ts'
import { docPage, docSnippet, docSnippets } from './support/doc-snippets.ts'

/**
 * The package as its users get it: packed from the build, installed into fresh projects (Node 20 with msw 2,
 * and Node 24 with msw 3), and used there the way the README says, with nothing of this repository around.
 */

/** The size budget of the installed package without its optional peers (msw, Vitest, Prism). */
/** The bound: 12 MB (decimal megabytes, the stricter reading), in KiB as `du -sk` counts. */
const MAX_INSTALLED_KIB = 12_000_000 / 1024
const SLOW = 240_000

/** `npx voice-api-kit contract --provision mock --destructive` against a running mock passes every check. */
/**
 * A provisioned, destructive run passes. Exploration needs fast-check, an optional peer: with it the run
 * explores (and passes); without it the run says, among the skipped checks, which package to install.
 */
async function expectContractPasses(
  project: string,
  runtime: Runtime,
  mock: StartedMock | undefined,
  explores: boolean,
) {
  expect(mock).toBeDefined()
  const args = [
    'voice-api-kit',
    'contract',
    '--base-url',
    mock?.baseUrl ?? '',
    '--provision',
    'mock',
    '--destructive',
  ]
  const run = await runIn(project, runtime, 'npx', args)
  expect(run.code, run.stdout + run.stderr).toBe(0)
  expect(run.stdout).toMatch(/[1-9]\d* passed, 0 failed/)
  if (explores) expect(run.stdout).toMatch(/ok Exploration\s+1 passed/)
  else expect(run.stdout).toContain('optional peer of voice-api-kit: npm install --save-dev fast-check')
}

let tarball: string
beforeAll(async () => {
  tarball = await packPackage()
}, SLOW)

describe('the packed tarball', () => {
  it('holds the build, the contract documents, the worker, README and LICENSE, and nothing of the repository', async () => {
    const listing = await runIn(join(tarball, '..'), currentRuntime('2'), 'tar', ['-tzf', tarball])
    const files = listing.stdout.split('\n').filter(Boolean)
    for (const needed of [
      'package/dist/mocks/node.js',
      'package/dist/mocks/node.d.ts',
      'package/dist/contracts/index.d.ts',
      'package/dist/openapi/index.d.ts',
      'package/dist/openapi/v1.json',
      'package/dist/docs/v1.html.gz',
      'package/dist/mocks/server/dashboard/index.html',
      'package/openapi/v1.yaml',
      'package/mocks/browser/mockServiceWorker.js',
      'package/README.md',
      'package/LICENSE',
    ])
      expect(files).toContain(needed)
    const strays = files.filter((file) =>
      /^package\/(test|scripts|examples|\.ci|contract-rules)\/|\.test\.|\.ts$(?<!\.d\.ts)|\.map$/.test(file),
    )
    expect(strays).toEqual([])
  })

  it('declares as side effects only the files that run something when loaded, each of them in the package', async () => {
    const runtime = currentRuntime('2')
    const listing = await runIn(join(tarball, '..'), runtime, 'tar', ['-tzf', tarball])
    const files = listing.stdout.split('\n').filter(Boolean)
    const manifest = await runIn(join(tarball, '..'), runtime, 'tar', [
      '-xOzf',
      tarball,
      'package/package.json',
    ])
    const { sideEffects, exports } = JSON.parse(manifest.stdout) as {
      sideEffects?: string[]
      exports: Record<string, string | { default: string }>
    }
    expect(Array.isArray(sideEffects), 'package.json sideEffects lists files').toBe(true)
    for (const entry of sideEffects ?? []) {
      const pattern = entry.startsWith('./')
        ? new RegExp(`^package/${entry.slice(2).replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`)
        : new RegExp(`/${entry.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`)
      expect(
        files.some((file) => pattern.test(file)),
        `${entry} names a file of the package`,
      ).toBe(true)
    }
    // The modules the package exports (what bundlers import) do nothing when loaded: tree-shaking may drop them.
    const modules = Object.values(exports)
      .map((target) => (typeof target === 'string' ? target : target.default))
      .filter((target) => target.endsWith('.js') && !target.endsWith('mockServiceWorker.js'))
    expect(modules.length).toBeGreaterThan(4)
    for (const module of modules) expect(sideEffects).not.toContain(module)
  })

  it('runs nothing at install: no prepare, preinstall, install or postinstall script (npm 11 warns about them)', async () => {
    const manifest = await runIn(join(tarball, '..'), currentRuntime('2'), 'tar', [
      '-xOzf',
      tarball,
      'package/package.json',
    ])
    const { scripts = {} } = JSON.parse(manifest.stdout) as { scripts?: Record<string, string> }
    expect(Object.keys(scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([])
  })

  it(
    'passes publint and arethetypeswrong (ESM-only profile; the YAML, CSS and worker exports are files, not modules)',
    async () => {
      const runtime = currentRuntime('2')
      const publint = await runIn(process.cwd(), runtime, 'npx', ['publint', tarball, '--strict'])
      expect(publint.code, publint.stdout + publint.stderr).toBe(0)
      expect(publint.stdout).toContain('All good')
      const attw = await runIn(process.cwd(), runtime, 'npx', [
        'attw',
        tarball,
        '--profile',
        'esm-only',
        '--format',
        'ascii',
        '--exclude-entrypoints',
        './mocks/browser/mockServiceWorker.js',
        './mocks/dashboard.css',
        './openapi/v1.yaml',
        './openapi/mock-control.yaml',
      ])
      expect(attw.code, attw.stdout + attw.stderr).toBe(0)
    },
    SLOW,
  )
})

describe('installed alone, without any optional peer (Node 20)', () => {
  const runtime = currentRuntime('none')
  let project: string
  let mock: StartedMock | undefined

  beforeAll(async () => {
    project = await createProject(tarball, runtime, [])
  }, SLOW)
  afterAll(async () => {
    await mock?.stop()
    rmSync(project, { recursive: true, force: true })
  })

  it('adds at most 12 MB to node_modules', async () => {
    expect(readdirSync(join(project, 'node_modules')).sort()).not.toContain('vitest')
    const kib = await diskUsageKiB(join(project, 'node_modules'))
    console.log(
      `installed size without peers: ${(kib / 1024).toFixed(1)} MiB = ${((kib * 1024) / 1e6).toFixed(1)} MB (du -sk node_modules)`,
    )
    expect(kib).toBeLessThanOrEqual(MAX_INSTALLED_KIB)
  })

  it('answers npx voice-api-kit --help', async () => {
    const help = await runIn(project, runtime, 'npx', ['voice-api-kit', '--help'])
    expect(help.code).toBe(0)
    for (const command of ['mock', 'contract', 'prism', 'proxy']) expect(help.stdout).toContain(command)
    expect(help.stderr).not.toMatch(/\n\s+at /)
  })

  it('says how to install Prism when it is missing, in one line', async () => {
    const prism = await runIn(project, runtime, 'npx', ['voice-api-kit', 'prism'])
    expect(prism.code).toBe(1)
    expect(meaningful(prism.stderr)).toEqual([
      expect.stringContaining('npm install --save-dev @stoplight/prism-cli'),
    ])
  })

  it(
    'starts npx voice-api-kit mock and serves the API, the dashboard and the docs',
    async () => {
      mock = await startInstalledMock(project, runtime, ['--keys-file', 'keys.json'])
      const keys = JSON.parse(readFileSync(join(project, 'keys.json'), 'utf8')) as { secret_key: string }
      const user = await fetch(`${mock.baseUrl}/user`, {
        headers: { authorization: `Bearer ${keys.secret_key}` },
      })
      expect(user.status).toBe(200)
      const origin = mock.baseUrl.replace(/\/v1$/, '')
      const dashboard = await fetch(`${origin}/_mock/dashboard`)
      expect(dashboard.status).toBe(200)
      const script = /src="([^"]+\.js)"/.exec(await dashboard.text())?.[1]
      expect(script).toBeDefined()
      expect((await fetch(new URL(script ?? '', `${origin}/_mock/dashboard`))).status).toBe(200)
      const docs = await fetch(`${origin}/_mock/docs`)
      expect(docs.status).toBe(200)
      expect(await docs.text()).toContain('Voice Agent Platform API')
    },
    SLOW,
  )

  it(
    'stops npx voice-api-kit mock when the npx process is killed (kill <pid>)',
    async () => {
      const started = await startInstalledMock(project, runtime, [])
      expect((await fetch(`${started.baseUrl}/user`)).status).toBe(401)
      // What `kill <pid>` of the npx process does: SIGTERM to npx alone, not to the processes it started.
      try {
        const npxExited = new Promise((resolve) => started.child.once('exit', resolve))
        started.child.kill('SIGTERM')
        await npxExited
        let answering = true
        for (let i = 0; i < 50 && answering; i++) {
          answering = await fetch(`${started.baseUrl}/user`).then(
            () => true,
            () => false,
          )
          if (answering) await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(answering, `the mock still answers 5 s after kill of npx:\n${started.output()}`).toBe(false)
      } finally {
        await started.stop()
      }
    },
    SLOW,
  )

  it(
    'runs npx voice-api-kit contract --provision mock --destructive with every check passing, without Vitest',
    async () => {
      await expectContractPasses(project, runtime, mock, false)
    },
    SLOW,
  )
})

/** Strings only the mock's code holds: Ajv's, the seed's, the engine's error codes, the worker's name. */
const MOCK_CODE = /Ajv|Maple Pharmacy|rate_limit_exceeded|createMockPlatform|mockServiceWorker|Contract drift/

/** What the app of the browser test does after the README's setup. */
const APP_CODE = `const response = await fetch('/v1/agents')
document.querySelector('#app')?.replaceChildren(\`agents: \${response.status}\`)
`

/** What a frontend team's project does with the package, on one Node.js with one msw major version. */
function consumerSuite(label: string, makeRuntime: () => Promise<Runtime>) {
  describe(label, () => {
    let runtime: Runtime
    let project: string
    let mock: StartedMock | undefined

    beforeAll(async () => {
      runtime = await makeRuntime()
      project = await createProject(tarball, runtime, [
        `msw@${runtime.msw}`,
        'typescript@5',
        'openapi-fetch@0',
        'vitest@4',
        'vite@8',
        'fast-check@4',
        `@types/node@${runtime.name.startsWith('Node 24') ? '24' : '20'}`,
      ])
    }, SLOW)
    afterAll(async () => {
      await mock?.stop()
      rmSync(project, { recursive: true, force: true })
    })

    it('runs on the Node.js and msw it says', async () => {
      const versions = await runIn(project, runtime, 'node', [
        '-p',
        "process.versions.node + ' ' + require('./node_modules/msw/package.json').version",
      ])
      const [node, msw] = versions.stdout.trim().split(' ')
      expect(`Node ${node}`).toBe(runtime.name)
      expect(msw?.split('.')[0]).toBe(runtime.msw)
    })

    it('imports every entry point from plain Node ESM, without a loader', async () => {
      const run = await runIn(project, runtime, 'node', ['imports.mjs'])
      expect(run.code, run.stderr).toBe(0)
      const exported = JSON.parse(run.stdout) as Record<string, string[] | string>
      expect(exported['voice-api-kit/mocks/node']).toEqual(expect.arrayContaining(['createMockApi']))
      expect(exported['voice-api-kit/mocks/browser']).toEqual(expect.arrayContaining(['startMockWorker']))
      expect(exported['voice-api-kit/mocks/dashboard']).toEqual(['mountDashboard'])
      expect(exported['voice-api-kit/contracts']).toEqual(expect.arrayContaining(['runChecks', 'allChecks']))
      expect(exported['voice-api-kit/contracts/vitest']).toEqual(
        expect.arrayContaining(['defineContractSuite']),
      )
      expect(exported['voice-api-kit/openapi']).toEqual(['mockControlDocument', 'v1Document'])
      expect(exported['openapi/v1.json']).toEqual(['openapi', 'jsonSchemaDialect', 'info'])
    })

    it('answers GET /v1/agents through createMockApi and msw/node, and api.reset() keeps the demo keys valid', async () => {
      const run = await runIn(project, runtime, 'node', ['msw.mjs'])
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout)).toEqual({ status: 200, agents: expect.any(Number), afterReset: 200 })
      expect(JSON.parse(run.stdout).agents).toBeGreaterThan(0)
    })

    it(
      'compiles a strict NodeNext consumer of every export and an openapi-fetch client with 0 errors (skipLibCheck: false)',
      async () => {
        const tsc = await runIn(project, runtime, 'npx', ['tsc', '-p', 'tsconfig.json'])
        expect(tsc.stdout + meaningful(tsc.stderr).join('\n')).toBe('')
        expect(tsc.code).toBe(0)
      },
      SLOW,
    )

    it(
      'serves the API, the dashboard and the docs from npx voice-api-kit mock',
      async () => {
        mock = await startInstalledMock(project, runtime, ['--keys-file', 'keys.json'])
        const keys = JSON.parse(readFileSync(join(project, 'keys.json'), 'utf8')) as { secret_key: string }
        const origin = mock.baseUrl.replace(/\/v1$/, '')
        const answers = await Promise.all([
          fetch(`${mock.baseUrl}/user`, { headers: { authorization: `Bearer ${keys.secret_key}` } }),
          fetch(`${origin}/_mock/dashboard`),
          fetch(`${origin}/_mock/docs`),
        ])
        expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
      },
      SLOW,
    )

    it(
      'passes the contract suite from npx voice-api-kit contract',
      async () => {
        await expectContractPasses(project, runtime, mock, true)
      },
      SLOW,
    )

    it(
      "runs the README's MSW setup (and docs/frontend.md's) as printed, in a Vitest project without a config",
      async () => {
        const snippets = ['README.md', 'docs/frontend.md'].flatMap((page) =>
          docSnippets(page, 'ts', ['setupServer(...api.handlers)']),
        )
        expect(snippets.map((snippet) => snippet.where)).toHaveLength(2)
        const files = snippets.map((snippet, i) => {
          const file = `snippet-${i}.test.ts`
          writeFileSync(join(project, file), `${snippet.code}\n`)
          return file
        })
        const run = await runIn(project, runtime, 'npx', ['vitest', 'run', ...files])
        expect(run.code, `${snippets.map((s) => s.where).join(', ')}\n${run.stdout}${run.stderr}`).toBe(0)
        expect(run.stdout).toMatch(/Tests\s+2 passed \(2\)/)
      },
      SLOW,
    )

    it(
      'typechecks that setup in a project as npm init -y and tsc --init make it once the one line of docs/frontend.md makes it ESM',
      async () => {
        const folder = join(project, 'commonjs')
        mkdirSync(folder)
        expect((await runIn(folder, runtime, 'npm', ['init', '-y'])).code).toBe(0)
        expect((await runIn(folder, runtime, 'npx', ['tsc', '--init'])).code).toBe(0)
        const setup = docSnippet('README.md', 'ts', ['setupServer(...api.handlers)'])
        writeFileSync(join(folder, 'setup.test.ts'), `${setup.code}\n`)
        const commonjs = await runIn(folder, runtime, 'npx', ['tsc', '-p', '.'])
        // npm init -y makes a CommonJS package: the README's setup (ESM, top-level await) cannot compile there.
        expect(commonjs.code).not.toBe(0)
        const oneLine = /`(npm pkg set type=module)`/.exec(docPage('docs/frontend.md'))?.[1]
        expect(oneLine, 'docs/frontend.md says how to make the project ESM').toBeDefined()
        const [command = '', ...args] = (oneLine ?? '').split(' ')
        expect((await runIn(folder, runtime, command, args)).code).toBe(0)
        const esm = await runIn(folder, runtime, 'npx', ['tsc', '-p', '.'])
        expect(esm.stdout + meaningful(esm.stderr).join('\n')).toBe('')
        expect(esm.code).toBe(0)
      },
      SLOW,
    )

    it(
      "builds the README's browser setup (static import, DEV guard) for production without any mock code, under 10 KiB of JavaScript",
      async () => {
        const setup = docSnippet('README.md', 'ts', ['startMockWorker', 'import.meta.env.DEV'])
        mkdirSync(join(project, 'app', 'src'), { recursive: true })
        writeFileSync(join(project, 'app', 'src', 'main.ts'), `${setup.code}\n${APP_CODE}`)
        const production = await runIn(join(project, 'app'), runtime, 'npx', [
          'vite',
          'build',
          '--logLevel',
          'error',
        ])
        expect(production.code, production.stderr).toBe(0)
        const scripts = (folder: string) => {
          const assets = join(project, 'app', folder, 'assets')
          return readdirSync(assets)
            .filter((name) => name.endsWith('.js'))
            .map((name) => ({
              bytes: statSync(join(assets, name)).size,
              text: readFileSync(join(assets, name), 'utf8'),
            }))
        }
        const built = scripts('dist')
        const bytes = built.reduce((sum, script) => sum + script.bytes, 0)
        console.log(`${runtime.name}: production JavaScript of the README's browser setup: ${bytes} bytes`)
        expect(
          built.filter((script) => MOCK_CODE.test(script.text)).map((s) => MOCK_CODE.exec(s.text)?.[0]),
        ).toEqual([])
        expect(bytes).toBeLessThan(10 * 1024)
        // The same app built for development keeps the worker: the check above can see mock code.
        const development = await runIn(
          join(project, 'app'),
          runtime,
          'npx',
          ['vite', 'build', '--outDir', 'dev-dist', '--logLevel', 'error'],
          { env: { NODE_ENV: 'development' } },
        )
        expect(development.code, development.stderr).toBe(0)
        expect(scripts('dev-dist').some((script) => MOCK_CODE.test(script.text))).toBe(true)
      },
      SLOW,
    )
  })
}

consumerSuite('a frontend project on Node 20 with msw 2', async () => currentRuntime('2'))
consumerSuite('a frontend project on Node 24 with msw 3', () => registryRuntime(24, '3'))
