import { describe, expect, it } from 'vitest'
import fixture from './fixtures/verdicts.json'
import type { CheckType, Operator } from '@/api/types'
import { blocks, Dec, evaluate, formatG, formatNumber, ruleInWords } from '@/lib/verdict'

interface Case {
  statistic: number | null
  comparison: number | null
  check_type: CheckType
  operator: Operator
  threshold: number
  status: string
  formula_value: number | null
  sentence: string
}

describe('the verdict sentence', () => {
  it('says the rule in words before any run', () => {
    expect(ruleInWords('statistics_minus_comparison', 'le', 0)).toBe('Pass when actual − expected ≤ 0')
    expect(ruleInWords('comparison_minus_statistics', 'ge', -2.5)).toBe('Pass when expected − actual ≥ -2.5')
    expect(ruleInWords('statistics_comparison_percentage', 'lt', 20)).toBe('Pass when actual ÷ expected × 100 < 20')
    expect(ruleInWords('statistics_comparison_difference_comparison_percentage', 'ne', 5)).toBe(
      'Pass when |expected − actual| ÷ expected × 100 ≠ 5',
    )
  })

  it('reads like the server: statistic 2 against a fixed 0 fails', () => {
    expect(evaluate(2, 0, 'statistics_minus_comparison', 'le', 0)).toEqual({
      status: 'fail',
      formulaValue: 2,
      sentence: 'Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail',
    })
  })

  it('is unknown without a statistic or without an expected value', () => {
    expect(evaluate(null, 5, 'statistics_minus_comparison', 'le', 0).status).toBe('unknown')
    expect(evaluate(5, null, 'statistics_minus_comparison', 'le', 0).sentence).toBe(
      'Pass when actual − expected ≤ 0: no expected value yet (no earlier results) → unknown',
    )
  })

  it('gives 0 for a percentage when the expected value is not positive', () => {
    const verdict = evaluate(5, 0, 'statistics_comparison_percentage', 'le', 10)
    expect(verdict.formulaValue).toBe(0)
    expect(verdict.sentence).toContain('(expected 0 ≤ 0, so the percentage is 0) = 0 ≤ 10 → pass')
  })

  it('compares decimals exactly, as Python Decimal does: 0.3 − 0.1 = 0.2', () => {
    expect(evaluate(0.3, 0.1, 'statistics_minus_comparison', 'eq', 0.2).status).toBe('pass')
  })

  it.each((fixture.cases as Case[]).map((c) => [c.sentence, c] as const))('matches evaluation.py: %s', (_sentence, c) => {
    const verdict = evaluate(c.statistic, c.comparison, c.check_type, c.operator, c.threshold)
    expect(verdict.sentence).toBe(c.sentence)
    expect(verdict.status).toBe(c.status)
    expect(verdict.formulaValue).toBe(c.formula_value)
  })
})

describe('numbers as the verdict prints them', () => {
  it.each([
    [12, '12'],
    [12.0, '12'],
    [3.5, '3.5'],
    [-2.5, '-2.5'],
    [2 / 3, '0.6667'],
    [1234.56789, '1234.57'],
    [1e21, '1000000000000000000000'],
    [0.00001, '0'],
    [-0.00001, '-0'],
  ])('%s → %s', (value, text) => {
    expect(formatNumber(value)).toBe(text)
  })

  it('follows Python’s %g', () => {
    expect(formatG(1234567)).toBe('1.23457e+06')
    expect(formatG(0.0001)).toBe('0.0001')
    expect(formatG(0.00001)).toBe('1e-05')
    expect(formatG(100)).toBe('100')
    expect(formatG(999999.5)).toBe('1e+06')
  })

  it('rounds half-even at 28 digits when dividing', () => {
    expect(Dec.of(2).dividedBy(Dec.of(3)).toString()).toBe('0.6666666666666666666666666667')
    expect(Dec.of(1).dividedBy(Dec.of(8)).toString()).toBe('0.125')
  })
})

describe('blocking', () => {
  it('blocks only a block-strategy check that failed or errored', () => {
    expect(blocks({ failure_strategy: 'block', status: 'fail' })).toBe(true)
    expect(blocks({ failure_strategy: 'block', status: 'error' })).toBe(true)
    expect(blocks({ failure_strategy: 'block', status: 'unknown' })).toBe(false)
    expect(blocks({ failure_strategy: 'alert', status: 'fail' })).toBe(false)
  })
})
