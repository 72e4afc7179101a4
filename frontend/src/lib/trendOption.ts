/**
 * The ECharts option of a check's trend (components/TrendChart.vue): the statistic and the
 * expected value over business time, failed results as red points, errored results as orange
 * triangles (at their statistic, or on the chart's floor when they measured nothing), and the
 * threshold band the server computed for each point (`passing_band`): green where the statistic
 * passes, red where it fails for "must differ" rules; for anomaly detection also its warn strips
 * (`fail_band`: between the passing band and it, the point warned). Pure, so Vitest checks it
 * without a canvas.
 */
import type { ChartOption } from '@/composables/useChart'
import type { HistoryPoint, PassingBand } from '@/api/types'
import { formatDateTime, formatValue, RESULT_STATUS } from './format'
import { translate } from '@/i18n'
// The series' names, shown in the legend and tooltips: read in the current language (getters).
const SERIES_KEYS = ['statistic', 'expected', 'failed', 'errored', 'passes', 'fails', 'warns'] as const
export const SERIES = {} as Record<(typeof SERIES_KEYS)[number], string>
for (const key of SERIES_KEYS) {
  Object.defineProperty(SERIES, key, { enumerable: true, get: () => translate(`format.trend.series.${key}`) })
}

type Datum = [number, number | null, number] // [time, value, index of the point]

/** Round bounds a little beyond the data, so the band's open side reaches the chart's edge. */
export function niceBounds(values: number[]): [number, number] {
  if (!values.length) return [0, 1]
  let low = Math.min(...values)
  let high = Math.max(...values)
  if (low === high) {
    const pad = Math.abs(low) || 1
    low -= pad
    high += pad
  }
  const span = high - low
  const step = 10 ** Math.floor(Math.log10(span)) / 2
  return [Math.floor((low - span * 0.08) / step) * step, Math.ceil((high + span * 0.08) / step) * step]
}

/** "between 90 and 110", "≥ 3", "= 0". */
function rangeInWords(band: PassingBand): string {
  const { low, high } = band
  return (
    low !== null && high !== null
      ? low === high
        ? `= ${formatValue(low)}`
        : translate('format.trend.between', { low: formatValue(low), high: formatValue(high) })
      : low !== null
        ? `≥ ${formatValue(low)}`
        : `≤ ${formatValue(high)}`
  )
}

export function bandInWords(band: PassingBand | null): string {
  if (!band) return ''
  const range = rangeInWords(band)
  return translate(band.passes === 'inside' ? 'format.trend.passesWhen' : 'format.trend.failsWhen', { range })
}

function tooltip(point: HistoryPoint): string {
  const lines = [
    `<b>${formatDateTime(point.data_time)}</b>`,
    translate('format.trend.runVersion', { run: point.run, version: point.check_version }),
    translate('format.trend.statistic', { value: `<b>${formatValue(point.statistics_value)}</b>` }),
    translate('format.trend.expected', { value: `<b>${formatValue(point.comparison_value)}</b>` }),
    translate('format.trend.result', { value: `<b>${RESULT_STATUS[point.status]?.label ?? point.status}</b>` }),
  ]
  if (point.passing_band) lines.push(translate('format.trend.theCheck', { band: bandInWords(point.passing_band) }))
  if (point.fail_band) lines.push(translate('format.trend.warnsBetween', { range: rangeInWords(point.fail_band) }))
  if (point.status === 'error' && point.message) lines.push(`<span style="white-space:normal">${escape(point.message)}</span>`)
  return lines.join('<br/>')
}

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)

export function trendOption(points: HistoryPoint[]): ChartOption | null {
  if (!points.length) return null
  const at = (p: HistoryPoint) => new Date(p.data_time).getTime()
  const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v)
  const measured = points.flatMap((p) => [p.statistics_value, p.comparison_value]).filter(finite)
  const edges = points
    .flatMap((p) => [p.passing_band?.low, p.passing_band?.high, p.fail_band?.low, p.fail_band?.high])
    .filter(finite)
  const [floor, ceiling] = niceBounds([...measured, ...edges])

  const datum = (p: HistoryPoint, index: number, value: number | null): Datum => [at(p), value, index]
  const band = (passes: PassingBand['passes']) => {
    const has = (p: HistoryPoint) => p.passing_band?.passes === passes
    const low = points.map((p, i) => datum(p, i, has(p) ? (p.passing_band!.low ?? floor) : null))
    const span = points.map((p, i) =>
      datum(p, i, has(p) ? (p.passing_band!.high ?? ceiling) - (p.passing_band!.low ?? floor) : null),
    )
    return { low, span, shown: points.some(has) }
  }
  const passing = band('inside')
  const failing = band('outside')
  // Anomaly detection's warn strips: from the fail bound to the passing bound, on either side.
  const strip = (from: (p: HistoryPoint) => number | null | undefined, to: (p: HistoryPoint) => number | null | undefined) => {
    const has = (p: HistoryPoint) => finite(from(p)) && finite(to(p))
    const low = points.map((p, i) => datum(p, i, has(p) ? from(p)! : null))
    const span = points.map((p, i) => datum(p, i, has(p) ? to(p)! - from(p)! : null))
    return { low, span, shown: points.some(has) }
  }
  const warnBelow = strip((p) => p.fail_band?.low, (p) => p.passing_band?.low)
  const warnAbove = strip((p) => p.passing_band?.high, (p) => p.fail_band?.high)
  const failed = points.flatMap((p, i) => (p.status === 'fail' ? [datum(p, i, p.statistics_value)] : []))
  // An errored result measured nothing (or could not compare): it stays on the trend, at its
  // statistic if it has one, else just above the floor, so a gap in the line has a visible reason.
  const ground = floor + (ceiling - floor) * 0.04
  const errored = points.flatMap((p, i) => (p.status === 'error' ? [datum(p, i, p.statistics_value ?? ground)] : []))

  const bandSeries = (name: string, stack: string, parts: ReturnType<typeof band>, color: string) =>
    parts.shown
      ? [
          { name: `${name} (floor)`, type: 'line' as const, stack, stackStrategy: 'all' as const, data: parts.low, symbol: 'none', lineStyle: { opacity: 0 }, silent: true, tooltip: { show: false } },
          { name, type: 'line' as const, stack, stackStrategy: 'all' as const, data: parts.span, symbol: 'none', lineStyle: { opacity: 0 }, itemStyle: { color }, areaStyle: { color }, silent: true },
        ]
      : []

  return {
    animation: false,
    grid: { left: 48, right: 24, top: 40, bottom: points.length > 12 ? 56 : 32, containLabel: true },
    legend: {
      top: 4,
      left: 0,
      data: [
        SERIES.statistic,
        SERIES.expected,
        ...(failed.length ? [SERIES.failed] : []),
        ...(errored.length ? [SERIES.errored] : []),
        ...(passing.shown ? [SERIES.passes] : []),
        ...(failing.shown ? [SERIES.fails] : []),
        ...(warnBelow.shown || warnAbove.shown ? [SERIES.warns] : []),
      ],
    },
    tooltip: {
      trigger: 'axis',
      formatter: (params: unknown) => {
        const items = (Array.isArray(params) ? params : [params]) as Array<{ value?: Datum }>
        const index = items.map((item) => item.value?.[2]).find((i) => typeof i === 'number')
        return index === undefined ? '' : tooltip(points[index])
      },
    },
    xAxis: { type: 'time', axisLabel: { hideOverlap: true }, splitLine: { show: false } },
    yAxis: { type: 'value', min: floor, max: ceiling, splitLine: { lineStyle: { color: '#eef1f5' } } },
    dataZoom: points.length > 12 ? [{ type: 'slider', height: 18, bottom: 8, start: 40, end: 100 }] : [],
    series: [
      ...bandSeries(SERIES.passes, 'passes', passing, 'rgba(103, 194, 58, 0.16)'),
      ...bandSeries(SERIES.fails, 'fails', failing, 'rgba(245, 108, 108, 0.12)'),
      ...bandSeries(SERIES.warns, 'warnsBelow', warnBelow, 'rgba(230, 162, 60, 0.18)'),
      ...bandSeries(SERIES.warns, 'warnsAbove', warnAbove, 'rgba(230, 162, 60, 0.18)'),
      {
        name: SERIES.statistic,
        type: 'line',
        data: points.map((p, i) => datum(p, i, p.statistics_value)),
        symbolSize: 7,
        itemStyle: { color: '#409eff' },
        lineStyle: { width: 2 },
        connectNulls: true,
        z: 3,
      },
      {
        name: SERIES.expected,
        type: 'line',
        data: points.map((p, i) => datum(p, i, p.comparison_value)),
        symbol: 'none',
        itemStyle: { color: '#909399' },
        lineStyle: { type: 'dashed', width: 2 },
        connectNulls: true,
        z: 3,
      },
      {
        name: SERIES.failed,
        type: 'scatter',
        data: failed,
        symbol: 'circle',
        symbolSize: 13,
        itemStyle: { color: '#f56c6c', borderColor: '#fff', borderWidth: 2 },
        z: 5,
      },
      {
        name: SERIES.errored,
        type: 'scatter',
        data: errored,
        symbol: 'triangle',
        symbolSize: 14,
        clip: false,
        itemStyle: { color: '#e6a23c', borderColor: '#fff', borderWidth: 1.5 },
        z: 6,
      },
    ],
  }
}
