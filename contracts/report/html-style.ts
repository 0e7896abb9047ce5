/** The HTML report's stylesheet, inlined so that the report is one self-contained file. */
export const HTML_STYLE = `
:root { color-scheme: light dark; --ok: #1a7f37; --fail: #cf222e; --skip: #8c6d1f; --na: #6e7781;
  --line: #d0d7de; --soft: #f6f8fa; --text: #1f2328; --bg: #ffffff; }
@media (prefers-color-scheme: dark) { :root { --line: #3d444d; --soft: #161b22; --text: #e6edf3; --bg: #0d1117;
  --ok: #3fb950; --fail: #f85149; --skip: #d29922; --na: #8b949e; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--text); background: var(--bg); max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 4px; }
.target { color: var(--na); margin: 0 0 16px; }
.verdict { font-size: 16px; font-weight: 600; padding: 8px 12px; border-radius: 6px; display: inline-block; }
.verdict.ok { background: color-mix(in srgb, var(--ok) 15%, transparent); color: var(--ok); }
.verdict.failed { background: color-mix(in srgb, var(--fail) 15%, transparent); color: var(--fail); }
dl.figures { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 16px 0; }
dl.figures dt { font-weight: 600; }
dl.figures dd { margin: 0; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 8px; }
nav a { display: inline-block; padding: 2px 10px; border: 1px solid var(--line); border-radius: 12px;
  text-decoration: none; color: inherit; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
.status { font-weight: 600; white-space: nowrap; }
.status.passed { color: var(--ok); } .status.failed { color: var(--fail); }
.status.skipped { color: var(--skip); } .status.not-applicable { color: var(--na); }
.reason { color: var(--na); }
details.failure { margin: 8px 0 16px; border: 1px solid var(--fail); border-radius: 6px; padding: 8px 12px; }
details.failure summary { cursor: pointer; font-weight: 600; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px;
  overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; margin: 4px 0 8px; }
.matrix td, .matrix th { text-align: center; font-size: 12px; }
.matrix td.op, .matrix th.op { text-align: left; white-space: nowrap; }
.matrix td.hit { background: color-mix(in srgb, var(--ok) 22%, transparent); }
.matrix td.miss { background: color-mix(in srgb, var(--fail) 10%, transparent); color: var(--na); }
.matrix td.none { color: var(--line); }
.legend span { margin-right: 16px; }
`
