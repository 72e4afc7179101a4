// Small display helpers shared by the pages: dates, durations, statuses, expected values in words.
import type { ComparisonSource, Result, ResultStatus, RunStatus } from '@/api/types'
import { currentLocale, translate } from '@/i18n'
// Dates in the app's language (not the browser's: English chosen in a Chinese browser reads
// "Dec 5, 2026"), one pair of formatters per language.
const formatters = new Map<string, { dateTime: Intl.DateTimeFormat; dateOnly: Intl.DateTimeFormat }>()
function formattersOf(locale: string) {
  let found = formatters.get(locale)
  if (!found) {
    const tag = locale === 'zh-CN' ? 'zh-CN' : undefined
    found = {
      dateTime: new Intl.DateTimeFormat(tag, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }),
      dateOnly: new Intl.DateTimeFormat(tag, { year: 'numeric', month: 'short', day: 'numeric' }),
    }
    formatters.set(locale, found)
  }
  return found
}
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : formattersOf(currentLocale.value).dateTime.format(date)
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—'
  const date = new Date(value.length === 10 ? `${value}T00:00:00` : value)
  return Number.isNaN(date.getTime()) ? value : formattersOf(currentLocale.value).dateOnly.format(date)
}

/** "3 min ago", "yesterday"… for lists; the full date goes in a title attribute. */
export function timeAgo(value: string | null | undefined, now: number = Date.now()): string {
  if (!value) return '—'
  const seconds = Math.round((now - new Date(value).getTime()) / 1000)
  if (Number.isNaN(seconds)) return value
  if (seconds < 45) return translate('format.ago.justNow')
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return translate('format.ago.minutes', { n: minutes })
  const hours = Math.round(minutes / 60)
  if (hours < 24) return translate('format.ago.hours', { n: hours })
  const days = Math.round(hours / 24)
  if (days === 1) return translate('format.ago.yesterday')
  if (days < 30) return translate('format.ago.days', { n: days })
  return formatDate(value)
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—'
  if (seconds < 1) return translate('format.duration.underOne')
  if (seconds < 60) return translate('format.span.seconds', { n: seconds.toFixed(seconds < 10 ? 1 : 0) })
  const minutes = Math.floor(seconds / 60)
  return translate('format.duration.minutesSeconds', { m: minutes, s: Math.round(seconds % 60) })
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

type StatusInfo = { readonly label: string; readonly tag: TagType; readonly hint: string }

/** Each status's tag colour, with its label and hint read in the current language when shown
 *  (getters: a template reading `.label` follows a switch of language). */
function statuses<K extends string>(group: string, tags: Record<K, TagType>): Record<K, StatusInfo> {
  return Object.fromEntries(
    Object.entries<TagType>(tags).map(([key, tag]) => [
      key,
      {
        tag,
        get label() {
          return translate(`format.${group}.${key}.label`)
        },
        get hint() {
          return translate(`format.${group}.${key}.hint`)
        },
      },
    ]),
  ) as Record<K, StatusInfo>
}

export const RESULT_STATUS = statuses<ResultStatus>('resultStatus', { pass: 'success', fail: 'danger', error: 'warning', unknown: 'info' })

export const RUN_STATUS = statuses<RunStatus>('runStatus', {
  queued: 'info',
  running: 'primary',
  passed: 'success',
  failed: 'danger',
  error: 'warning',
  unknown: 'info',
  cancelled: 'info',
})
// The comparison types with a name in locales/<locale>/format.json (`comparison.<type>`).
const COMPARISON_NAMES = new Set([
  'fix_value',
  'daily_avg',
  'weekly_avg',
  'monthly_avg',
  'last_7_day_avg',
  'last_30_day_avg',
  'last_7_runs_3_sigma',
  'last_7_runs_20_pct',
  'src_table_total_rows',
  'target_table_total_rows',
  'comparison_query',
  'anomaly',
])
export function comparisonName(key: string | undefined): string {
  if (!key) return '—'
  return COMPARISON_NAMES.has(key) ? translate(`format.comparison.${key}`) : key.replace(/_/g, ' ')
}

/** How the expected value was obtained, in words: "Fixed value", "Average of 3 results of runs #4, #5, #7 …". */
export function comparisonInWords(result: Pick<Result, 'comparison_type' | 'comparison_source'>): string {
  const source: ComparisonSource = result.comparison_source ?? {}
  const kind = source.type || result.comparison_type
  if (kind === 'fix_value') return translate('format.source.fixValue')
  if (kind === 'src_table_total_rows' || kind === 'target_table_total_rows') {
    return source.batch ? translate('format.source.ofBatch', { name: comparisonName(kind), batch: source.batch }) : comparisonName(kind)
  }
  if (kind === 'comparison_query') return translate('format.source.comparisonQuery')
  if (source.source === 'anomaly') {
    return source.learned ? translate('format.source.anomalyLearned', { sentence: source.learned.sentence }) : translate('format.source.anomaly')
  }
  if (source.baseline_runs !== undefined) {
    const runs = source.baseline_runs
    const window = windowInWords(source.window)
    if (!runs.length) return translate('format.source.noEarlier', { name: comparisonName(kind), window })
    const shown = runs.slice(0, 4).map((r) => `#${r}`).join(translate('format.listSeparator'))
    const list = runs.length > 4 ? translate('format.source.andMore', { list: shown, count: runs.length - 4 }) : shown
    const values = source.values ?? runs.length
    const runsWord = translate(runs.length === 1 ? 'format.source.run' : 'format.source.runs', { list })
    return translate(values === 1 ? 'format.source.baselineOne' : 'format.source.baseline', { name: comparisonName(kind), values, runs: runsWord, window })
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
    if (counted) return translate(counted[2] === 'runs' ? 'format.window.lastRuns' : 'format.window.lastDays', { n: counted[1] })
    return ` (${window.replace(/_/g, ' ')})`
  }
  const latest = window.latest ? translate('format.window.latest', { n: window.latest }) : ''
  if (window.start && window.end) return translate('format.window.between', { start: formatDate(window.start), end: formatDate(window.end), latest })
  if (window.end) return translate('format.window.before', { end: formatDate(window.end), latest })
  return latest
}

const DIMENSION_KEYS = ['completeness', 'uniqueness', 'validity', 'accuracy', 'consistency', 'timeliness', 'volume', 'custom']
/** The quality dimensions in the order pages list them; label and blurb in the current language. */
export const DIMENSIONS: Record<string, { readonly label: string; readonly blurb: string }> = Object.fromEntries(
  DIMENSION_KEYS.map((key) => [
    key,
    {
      get label() {
        return translate(`format.dimension.${key}.label`)
      },
      get blurb() {
        return translate(`format.dimension.${key}.blurb`)
      },
    },
  ]),
)
export function dimensionLabel(key: string): string {
  return DIMENSIONS[key]?.label ?? key.charAt(0).toUpperCase() + key.slice(1)
}

export function datasourceKind(type: string, format?: string): string {
  if (type === 'postgresql') return 'PostgreSQL'
  if (type === 'mysql') return 'MySQL / MariaDB'
  if (type === 'file') return format ? translate('format.filesOf', { format: format.toUpperCase() }) : translate('format.files')
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
