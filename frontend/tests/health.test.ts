import { describe, expect, it } from 'vitest'
import type { TrendDay } from '@/api/health'
import { healthTrendOption, scoreColor, scoreText, spanText, tallyInWords } from '@/lib/health'

const day = (date: string, score: number | null, passed = 0, failed = 0): TrendDay => ({ date, score, passed, failed, errors: 0, unknown: 0 })

describe('health wording', () => {
  it('shows no score as a dash, never as 0%', () => {
    expect(scoreText(null)).toBe('—')
    expect(scoreText(66.7)).toBe('66.7%')
    expect(scoreColor(null)).toBe('#909399')
    expect(scoreColor(100)).toBe('#67c23a')
    expect(scoreColor(50)).toBe('#f56c6c')
  })

  it('says the counts left out of the score beside it', () => {
    const tally = { score: 75, checks: 7, passed: 3, failed: 1, errors: 1, unknown: 1, never_run: 1 }
    expect(tallyInWords(tally)).toBe('3 of 4 decided passed · 1 errored · 1 unknown · 1 never run')
    expect(tallyInWords({ ...tally, passed: 0, failed: 0 })).toMatch(/^none decided/)
  })

  it('reads incident times in the unit that fits', () => {
    expect(spanText(null)).toBe('—')
    expect(spanText(45 * 60)).toBe('45 min')
    expect(spanText(7 * 3600)).toBe('7.0 h')
    expect(spanText(3 * 86400)).toBe('3.0 days')
  })
})

describe('the 30-day trend chart', () => {
  it('draws nothing when no day has a score', () => {
    expect(healthTrendOption([day('2026-12-01', null), day('2026-12-02', null)])).toBeNull()
  })

  it('plots each day at its score, leaving days without one as gaps', () => {
    const option = healthTrendOption([day('2026-12-01', null), day('2026-12-02', 50, 1, 1), day('2026-12-03', 100, 2)])!
    const series = option.series as Array<{ data: Array<number | null> }>
    expect(series[0].data).toEqual([null, 50, 100])
    expect((option.xAxis as { data: string[] }).data).toEqual(['12-01', '12-02', '12-03'])
  })
})
