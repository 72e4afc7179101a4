import { describe, expect, it } from 'vitest'
import { comparisonInWords } from '@/lib/format'

describe('how the expected value was obtained, in words', () => {
  it('says over which runs a dynamic range looked when it found no earlier results, never "from — to —"', () => {
    const words = comparisonInWords({
      comparison_type: 'last_7_runs_3_sigma',
      comparison_source: { type: 'last_7_runs_3_sigma', source: 'range', window: 'last_7_runs', baseline_runs: [] },
    })
    expect(words).toBe('Dynamic range: last 7 normal runs, mean ± 3σ: no earlier results over the last 7 runs')
    expect(words).not.toContain('—')
  })

  it('says "before" the end when a history window has no start', () => {
    const words = comparisonInWords({
      comparison_type: 'daily_avg',
      comparison_source: {
        type: 'daily_avg',
        window: { start: null, end: '2026-11-30T00:00:00+00:00' },
        baseline_runs: [],
      },
    })
    expect(words).toBe('Daily average: no earlier results before Nov 30, 2026')
  })

  it('names both ends of a dated window and the runs it averaged', () => {
    const words = comparisonInWords({
      comparison_type: 'last_7_day_avg',
      comparison_source: {
        type: 'last_7_day_avg',
        window: { start: '2026-11-23T00:00:00+00:00', end: '2026-11-30T00:00:00+00:00' },
        baseline_runs: [4, 5],
        values: 2,
      },
    })
    expect(words).toBe('Last 7 days average of 2 earlier results (runs #4, #5) from Nov 23, 2026 to Nov 30, 2026')
  })
})
