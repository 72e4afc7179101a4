/**
 * Health pages' wording and the ECharts option of a score's 30-day trend (components/health).
 * Pure, so Vitest checks it without a canvas.
 */
import type { ChartOption } from '@/composables/useChart'
import type { HealthTally, TrendDay } from '@/api/health'
import { formatDate } from './format'
import { translate } from '@/i18n'

// The six dimensions in the order the pages show them (DolphinScheduler's four first).
export const HEALTH_DIMENSIONS = ['timeliness', 'completeness', 'accuracy', 'consistency', 'validity', 'uniqueness']

/** Green from 95, amber from 80, red below; grey without a score. */
export function scoreColor(score: number | null | undefined): string {
  if (score === null || score === undefined) return '#909399'
  if (score >= 95) return '#67c23a'
  if (score >= 80) return '#e6a23c'
  return '#f56c6c'
}

export function scoreText(score: number | null | undefined): string {
  return score === null || score === undefined ? '—' : `${score}%`
}

/** "3 of 4 decided checks passed · 1 errored · 1 unknown · 1 never run" */
export function tallyInWords(t: HealthTally): string {
  const decided = t.passed + t.failed
  const parts = [decided ? translate('health.tally.decided', { passed: t.passed, decided }) : translate('health.tally.noneDecided')]
  if (t.errors) parts.push(translate('health.tally.errored', { count: t.errors }))
  if (t.unknown) parts.push(translate('health.tally.unknown', { count: t.unknown }))
  if (t.never_run) parts.push(translate('health.tally.neverRun', { count: t.never_run }))
  return parts.join(' · ')
}

/** A time to acknowledge or resolve: "45 min", "7.0 h", "3.2 days", or an em dash. */
export function spanText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—'
  if (seconds < 60) return translate('format.span.seconds', { n: Math.round(seconds) })
  if (seconds < 3600) return translate('format.span.minutes', { n: Math.round(seconds / 60) })
  if (seconds < 86400 * 2) return translate('format.span.hours', { n: (seconds / 3600).toFixed(1) })
  return translate('format.span.days', { n: (seconds / 86400).toFixed(1) })
}

export function healthTrendOption(days: TrendDay[]): ChartOption | null {
  if (!days.some((d) => d.score !== null)) return null
  return {
    animation: false,
    grid: { left: 8, right: 16, top: 16, bottom: 8, containLabel: true },
    tooltip: {
      trigger: 'axis',
      formatter: (params: unknown) => {
        const item = (Array.isArray(params) ? params[0] : params) as { dataIndex?: number }
        const day = days[item?.dataIndex ?? -1]
        if (!day) return ''
        const decided = day.passed + day.failed
        const lines = [
          `<b>${formatDate(day.date)}</b>`,
          translate('health.chart.score', { score: `<b>${scoreText(day.score)}</b>` }),
          decided ? translate('health.chart.decided', { passed: day.passed, decided }) : translate('health.chart.noneDecided'),
        ]
        if (day.errors || day.unknown) lines.push(translate('health.chart.notScored', { errors: day.errors, unknown: day.unknown }))
        return lines.join('<br/>')
      },
    },
    xAxis: {
      type: 'category',
      data: days.map((d) => d.date.slice(5)),
      // Every fifth day, counted back from today, so today is always labelled.
      axisLabel: { interval: (index: number) => (days.length - 1 - index) % 5 === 0, margin: 10 },
      axisTick: { interval: (index: number) => (days.length - 1 - index) % 5 === 0 },
      boundaryGap: false,
    },
    yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value}%' }, splitLine: { lineStyle: { color: '#eef1f5' } } },
    series: [
      {
        name: translate('health.chart.series'),
        type: 'line',
        data: days.map((d) => d.score),
        connectNulls: false,
        symbol: 'circle',
        symbolSize: 7,
        itemStyle: { color: '#409eff' },
        areaStyle: { color: 'rgba(64, 158, 255, 0.08)' },
      },
    ],
  }
}
