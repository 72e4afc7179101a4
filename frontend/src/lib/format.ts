// Small display helpers shared by the pages: dates, durations, statuses, expected values in words.
import type { ComparisonSource, Result, ResultStatus, RunStatus } from '@/api/types'

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
})
const dateOnly = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' })

export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date)
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—'
  const date = new Date(value.length === 10 ? `${value}T00:00:00` : value)
  return Number.isNaN(date.getTime()) ? value : dateOnly.format(date)
}

/** "3 min ago", "yesterday"… for lists; the full date goes in a title attribute. */
export function timeAgo(value: string | null | undefined, now: number = Date.now()): string {
  if (!value) return '—'
  const seconds = Math.round((now - new Date(value).getTime()) / 1000)
  if (Number.isNaN(seconds)) return value
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.round(hours / 24)
  if (days === 1) return 'yesterday'
  if (days < 30) return `${days} days ago`
  return formatDate(value)
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—'
  if (seconds < 1) return '< 1 s'
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`
  const minutes = Math.floor(seconds / 60)
  return `${minutes} min ${Math.round(seconds % 60)} s`
}

/**
 * A statistic or expected value for reading: 12 not 12.0, long fractions to 4 places and 6
 * significant digits, or an em dash. (The verdict's own numbers come worded by the server.)
 */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  if (Number.isInteger(value)) return String(value)
  const fourPlaces = Math.round(value * 1e4) / 1e4
  const wholeDigits = fourPlaces === 0 ? 1 : Math.floor(Math.log10(Math.abs(fourPlaces))) + 1
  const rounded = Number(fourPlaces.toPrecision(Math.min(21, Math.max(6, wholeDigits))))
  return String(Object.is(rounded, -0) ? 0 : rounded)
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString()
}

type TagType = 'success' | 'danger' | 'warning' | 'info' | 'primary'

export const RESULT_STATUS: Record<ResultStatus, { label: string; tag: TagType; hint: string }> = {
  pass: { label: 'Pass', tag: 'success', hint: 'The rule held.' },
  fail: { label: 'Fail', tag: 'danger', hint: 'The rule did not hold.' },
  error: { label: 'Error', tag: 'warning', hint: 'The check could not be evaluated.' },
  unknown: { label: 'Unknown', tag: 'info', hint: 'Measured, but there is no expected value yet.' },
}

export const RUN_STATUS: Record<RunStatus, { label: string; tag: TagType; hint: string }> = {
  queued: { label: 'Queued', tag: 'info', hint: 'Waiting for a worker.' },
  running: { label: 'Running', tag: 'primary', hint: 'An engine is reading the data.' },
  passed: { label: 'Passed', tag: 'success', hint: 'Every check passed.' },
  failed: { label: 'Failed', tag: 'danger', hint: 'At least one check failed.' },
  error: { label: 'Error', tag: 'warning', hint: 'At least one check could not be evaluated.' },
  unknown: { label: 'Unknown', tag: 'info', hint: 'No check failed, but at least one could not decide (no expected value yet).' },
  cancelled: { label: 'Cancelled', tag: 'info', hint: 'The run was cancelled.' },
}

const COMPARISON_NAMES: Record<string, string> = {
  fix_value: 'Fixed value',
  daily_avg: 'Daily average',
  weekly_avg: 'Weekly average',
  monthly_avg: 'Monthly average',
  last_7_day_avg: 'Last 7 days average',
  last_30_day_avg: 'Last 30 days average',
  last_7_runs_3_sigma: 'Dynamic range: last 7 normal runs, mean ± 3σ',
  last_7_runs_20_pct: 'Dynamic range: last 7 normal runs, mean ± 20%',
  src_table_total_rows: 'Source table row count',
  target_table_total_rows: 'Target table row count',
  comparison_query: 'Comparison query',
  anomaly: 'Anomaly detection',
}

export function comparisonName(key: string | undefined): string {
  if (!key) return '—'
  return COMPARISON_NAMES[key] ?? key.replace(/_/g, ' ')
}

/** How the expected value was obtained, in words: "Fixed value", "Average of 3 results of runs #4, #5, #7 …". */
export function comparisonInWords(result: Pick<Result, 'comparison_type' | 'comparison_source'>): string {
  const source: ComparisonSource = result.comparison_source ?? {}
  const kind = source.type || result.comparison_type
  if (kind === 'fix_value') return 'Fixed value set on the check'
  if (kind === 'src_table_total_rows' || kind === 'target_table_total_rows') {
    return `${comparisonName(kind)}${source.batch ? ` (batch ${source.batch})` : ''}`
  }
  if (kind === 'comparison_query') return 'Measured by the comparison query'
  if (source.source === 'anomaly') return `Anomaly detection, its centre${source.learned ? `: ${source.learned.sentence}` : ''}`
  if (source.baseline_runs !== undefined) {
    const runs = source.baseline_runs
    const window = windowInWords(source.window)
    if (!runs.length) return `${comparisonName(kind)}: no earlier results${window}`
    const list = runs.length > 4 ? `${runs.slice(0, 4).map((r) => `#${r}`).join(', ')} and ${runs.length - 4} more` : runs.map((r) => `#${r}`).join(', ')
    const values = source.values ?? runs.length
    return `${comparisonName(kind)} of ${values} earlier result${values === 1 ? '' : 's'} (run${runs.length === 1 ? '' : 's'} ${list})${window}`
  }
  return comparisonName(kind)
}

/**
 * Where earlier results were looked for, as a clause: " from 1 Nov 2026 to 8 Nov 2026", " before
 * 8 Nov 2026" (no start: every earlier date), " over the last 7 runs" (a window counted in runs,
 * which has no dates); '' when the source names none, rather than "from — to —".
 */
export function windowInWords(window: ComparisonSource['window']): string {
  if (!window) return ''
  if (typeof window === 'string') {
    const counted = /^last_(\d+)_(runs|days)$/.exec(window)
    return counted ? ` over the last ${counted[1]} ${counted[2]}` : ` (${window.replace(/_/g, ' ')})`
  }
  const latest = window.latest ? `, the latest ${window.latest}` : ''
  if (window.start && window.end) return ` from ${formatDate(window.start)} to ${formatDate(window.end)}${latest}`
  if (window.end) return ` before ${formatDate(window.end)}${latest}`
  return latest
}

export const DIMENSIONS: Record<string, { label: string; blurb: string }> = {
  completeness: { label: 'Completeness', blurb: 'Is every value there?' },
  uniqueness: { label: 'Uniqueness', blurb: 'Does each key occur once?' },
  validity: { label: 'Validity', blurb: 'Do values have the right form and range?' },
  accuracy: { label: 'Accuracy', blurb: 'Do tables agree with each other?' },
  consistency: { label: 'Consistency', blurb: 'Do numbers line up across sources?' },
  timeliness: { label: 'Timeliness', blurb: 'Is the data fresh enough?' },
  volume: { label: 'Volume', blurb: 'Is the amount of data as expected?' },
  custom: { label: 'Custom', blurb: 'Your own SQL.' },
}

export function dimensionLabel(key: string): string {
  return DIMENSIONS[key]?.label ?? key.charAt(0).toUpperCase() + key.slice(1)
}

export function datasourceKind(type: string, format?: string): string {
  if (type === 'postgresql') return 'PostgreSQL'
  if (type === 'mysql') return 'MySQL / MariaDB'
  if (type === 'file') return format ? `${format.toUpperCase()} files` : 'Files'
  return type
}

/** The user's local midnight of a YYYY-MM-DD day as an ISO instant (for since/until filters). */
export function startOfLocalDay(day: string): string {
  return new Date(`${day}T00:00:00`).toISOString()
}
export function endOfLocalDay(day: string): string {
  const date = new Date(`${day}T00:00:00`)
  date.setDate(date.getDate() + 1)
  return date.toISOString()
}
