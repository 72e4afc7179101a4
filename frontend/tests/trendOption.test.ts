import { describe, expect, it } from 'vitest'
import type { HistoryPoint } from '@/api/types'
import { bandInWords, SERIES, trendOption } from '@/lib/trendOption'

const point = (overrides: Partial<HistoryPoint>): HistoryPoint => ({
  result: 1,
  run: 1,
  data_time: '2026-11-01T00:00:00Z',
  partition_key: '',
  status: 'pass',
  statistics_value: 2,
  comparison_value: 0,
  check_version: 1,
  threshold: 0,
  operator: 'le',
  check_type: 'statistics_minus_comparison',
  passing_band: { low: null, high: 0, passes: 'inside' },
  fail_band: null,
  message: '',
  ...overrides,
})

type Series = { name: string; data: Array<[number, number | null, number]>; stack?: string }
const series = (option: ReturnType<typeof trendOption>) => (option!.series as Series[]) ?? []
const named = (option: ReturnType<typeof trendOption>, name: string) => series(option).find((s) => s.name === name)

describe('the trend chart', () => {
  const points = [
    point({ result: 1, run: 1, data_time: '2026-11-01T00:00:00Z', status: 'fail', statistics_value: 2 }),
    point({
      result: 2,
      run: 2,
      data_time: '2026-11-02T00:00:00Z',
      status: 'error',
      statistics_value: null,
      comparison_value: null,
      passing_band: null,
      message: 'The table shop.orders does not exist.',
    }),
    point({ result: 3, run: 3, data_time: '2026-11-03T00:00:00Z', status: 'pass', statistics_value: 0 }),
  ]

  it('keeps an errored result on the trend as a marker just above the floor, not a dropped point', () => {
    const option = trendOption(points)!
    const errored = named(option, SERIES.errored)!
    const { min, max } = option.yAxis as { min: number; max: number }
    expect(errored.data).toEqual([[Date.parse('2026-11-02T00:00:00Z'), min + (max - min) * 0.04, 1]])
    expect((option.legend as { data: string[] }).data).toContain(SERIES.errored)
    expect(named(option, SERIES.failed)!.data.map((d) => d[2])).toEqual([0])
  })

  it('draws the passing band from each point’s own band, open sides reaching the chart’s edge', () => {
    const option = trendOption(points)!
    const { min, max } = option.yAxis as { min: number; max: number }
    const floor = named(option, `${SERIES.passes} (floor)`)!
    const span = named(option, SERIES.passes)!
    expect(floor.stack).toBe(span.stack)
    // "≤ 0" is open below: from the chart's floor up to 0; the errored point has no band.
    expect(floor.data.map((d) => d[1])).toEqual([min, null, min])
    expect(span.data.map((d) => d[1])).toEqual([0 - min, null, 0 - min])
    expect(max).toBeGreaterThan(2)
  })

  it('shades where a check fails when it passes outside a range', () => {
    const outside = [point({ passing_band: { low: 90, high: 110, passes: 'outside' }, statistics_value: 120, comparison_value: 100 })]
    const option = trendOption(outside)!
    expect(named(option, SERIES.fails)!.data[0][1]).toBe(20)
    expect(named(option, SERIES.passes)).toBeUndefined()
  })

  it('says a band in words for the tooltip', () => {
    expect(bandInWords({ low: null, high: 0, passes: 'inside' })).toBe('passes when the statistic is ≤ 0')
    expect(bandInWords({ low: 90, high: 110, passes: 'outside' })).toBe('fails when the statistic is between 90 and 110')
  })

  it('has nothing to draw without points', () => {
    expect(trendOption([])).toBeNull()
  })
})

describe('anomaly detection on the trend', () => {
  it('draws the warn strips between the passing band and the fail band, on each side', () => {
    const judged = point({
      status: 'fail',
      statistics_value: 80,
      comparison_value: 100,
      passing_band: { low: 90, high: 110, passes: 'inside' },
      fail_band: { low: 85, high: 115, passes: 'inside' },
    })
    const option = trendOption([judged])
    const strips = series(option).filter((s) => s.name.startsWith(SERIES.warns) && s.stack)
    // Below: from 85, 5 high (to 90); above: from 110, 5 high (to 115).
    expect(strips.map((s) => [s.stack, s.data[0][1]])).toEqual([
      ['warnsBelow', 85],
      ['warnsBelow', 5],
      ['warnsAbove', 110],
      ['warnsAbove', 5],
    ])
    expect((option!.legend as { data: string[] }).data).toContain(SERIES.warns)
  })

  it('draws no warn strip on the side a direction leaves open, nor without a fail band', () => {
    const up = point({ passing_band: { low: null, high: 110, passes: 'inside' }, fail_band: { low: null, high: 115, passes: 'inside' } })
    const stacks = series(trendOption([up])).map((s) => s.stack)
    expect(stacks).toContain('warnsAbove')
    expect(stacks).not.toContain('warnsBelow')
    expect(series(trendOption([point({})])).some((s) => s.name === SERIES.warns)).toBe(false)
  })
})
