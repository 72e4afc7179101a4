/**
 * The row checks' editor talks to POST /api/v1/row-checks/validate/ and …/preview/: these helpers
 * turn its answers into what the editor shows. A 400 lists each problem in the API's one error
 * shape (`fields.checks_yaml: ["line 3: checks[1]: unknown operator …"]`), each starting with its
 * line, which places the problem's marker in the editor.
 */
import { ApiError } from '@/http'

export interface YamlProblem {
  line: number | null
  text: string
}

export interface RuleCheckDetail {
  name: string
  failed_rows: number | null
  critical: boolean
  message?: string
}

export interface PreviewAnswer {
  engine?: string | null // the engine that read the sample (duckdb for files, spark for a database table)
  rows: number | null
  invalid_rows: number | null
  message: string
  checks: RuleCheckDetail[]
}

/** A preview job (POST …/preview/ answers 202 with it; GET its `url` until done or error); the
 * answer's fields are there once `status` is `done`. */
export interface PreviewJob extends Partial<PreviewAnswer> {
  id: string
  status: 'queued' | 'running' | 'done' | 'error'
  url: string
  message: string
}

export function previewPending(job: PreviewJob): boolean {
  return job.status === 'queued' || job.status === 'running'
}

// The server's "line N: …", in English or in Chinese ("第 N 行：…").
const LINE = /^(?:line (\d+): |第 (\d+) 行：)/

/** "line 3: checks[1]: …" → {line: 3, text: "line 3: checks[1]: …"}; no line → null. */
export function problemAt(text: string): YamlProblem {
  const match = LINE.exec(text)
  return { line: match ? Number(match[1] ?? match[2]) : null, text }
}

/** The problems of a rejected validate/preview call: the YAML's own (with lines) first, then the
 * other fields' (no datasource, an unknown table), then the message alone. */
export function problemsOf(error: unknown, textField: string): YamlProblem[] {
  if (!(error instanceof ApiError)) return [{ line: null, text: String(error) }]
  const flat = error.flatFields()
  const own = (flat[textField] ?? []).map(problemAt)
  const others = Object.entries(flat)
    .filter(([field]) => field !== textField)
    .flatMap(([field, messages]) => messages.map((text) => ({ line: null, text: `${field}: ${text}` })))
  const all = [...own, ...others]
  return all.length ? all : [{ line: null, text: error.message }]
}

/** The character range of a 1-based line of `text` (clamped to the text), for the editor's marker. */
export function lineRange(text: string, line: number): { from: number; to: number } {
  const lines = text.split('\n')
  const index = Math.min(Math.max(line, 1), lines.length) - 1
  let from = 0
  for (let i = 0; i < index; i++) from += lines[i].length + 1
  return { from, to: from + lines[index].length }
}

/** The body the endpoints take: the text under its own key, with the form's source fields. */
export function requestBody(
  textField: string,
  text: string,
  values: { datasource: unknown; table: unknown; filter?: unknown },
  limit?: number,
): Record<string, unknown> {
  const key = textField === 'contract_yaml' ? 'contract_yaml' : 'checks_yaml'
  const body: Record<string, unknown> = {
    [key]: text,
    src_datasource_id: values.datasource,
    src_table: values.table,
  }
  if (limit !== undefined) {
    body.limit = limit
    if (values.filter) body.src_filter = values.filter
  }
  return body
}
