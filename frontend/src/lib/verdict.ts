/**
 * The check formula in words, mirroring executions/evaluation.py line for line, so that the check
 * form can say "Pass when actual − expected ≤ 0" before any run, and so that a sentence the SPA
 * makes reads exactly like the one the server stores in `result.verdict`.
 *
 * The server computes in Python's Decimal (28 significant digits, half-even rounding) from each
 * number's shortest text form; `Dec` below does the same with BigInt, so `eq` verdicts and the
 * printed numbers agree to the digit. tests/fixtures/verdicts.json holds sentences made by the
 * Python code, and both test suites check them (tests/test_spa_verdict_mirror.py on the Python side).
 */
import type { CheckType, Operator, ResultStatus } from '@/api/types'

export const CHECK_TYPES: Record<CheckType, string> = {
  comparison_minus_statistics: 'expected − actual',
  statistics_minus_comparison: 'actual − expected',
  statistics_comparison_percentage: 'actual ÷ expected × 100',
  statistics_comparison_difference_comparison_percentage: '|expected − actual| ÷ expected × 100',
}

export const OPERATORS: Record<Operator, string> = { eq: '=', lt: '<', le: '≤', gt: '>', ge: '≥', ne: '≠' }
const NEGATED: Record<Operator, string> = { eq: '≠', lt: '≥', le: '>', gt: '≤', ge: '<', ne: '=' }

export interface Verdict {
  status: Extract<ResultStatus, 'pass' | 'fail' | 'unknown'>
  formulaValue: number | null
  sentence: string
}

// --- a small decimal: value = m × 10^e ----------------------------------------------------------
const PRECISION = 28 // Python's default decimal context

const pow10 = (n: number): bigint => 10n ** BigInt(n)
const digits = (m: bigint): number => (m < 0n ? -m : m).toString().length

/** Round |m| half-even, dropping `drop` digits; `sticky` = something non-zero was already dropped. */
function roundDrop(m: bigint, drop: number, sticky = false): bigint {
  if (drop <= 0) return m
  const negative = m < 0n
  const magnitude = negative ? -m : m
  const unit = pow10(drop)
  let kept = magnitude / unit
  const rest = magnitude % unit
  const twice = rest * 2n
  if (twice > unit || (twice === unit && (sticky || kept % 2n === 1n))) kept += 1n
  return negative ? -kept : kept
}

export class Dec {
  constructor(
    readonly m: bigint,
    readonly e: number,
  ) {}

  /** Like Python's Decimal(str(x)): the shortest text form of the number, digit for digit. */
  static of(value: number | string): Dec {
    const text = typeof value === 'number' ? String(value) : value.trim()
    const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text)
    if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`Not a finite number: ${text}`)
    const [, sign, whole, fraction = '', exponent = '0'] = match
    const mantissa = BigInt((whole || '0') + fraction)
    return new Dec(sign === '-' ? -mantissa : mantissa, Number(exponent) - fraction.length)
  }

  /** Python's context rounding: at most 28 significant digits. */
  private context(sticky = false): Dec {
    const drop = digits(this.m) - PRECISION
    return drop > 0 ? new Dec(roundDrop(this.m, drop, sticky), this.e + drop) : this
  }

  private static align(a: Dec, b: Dec): [bigint, bigint, number] {
    const e = Math.min(a.e, b.e)
    return [a.m * pow10(a.e - e), b.m * pow10(b.e - e), e]
  }

  minus(other: Dec): Dec {
    const [a, b, e] = Dec.align(this, other)
    return new Dec(a - b, e).context()
  }

  times(other: Dec): Dec {
    return new Dec(this.m * other.m, this.e + other.e).context()
  }

  dividedBy(other: Dec): Dec {
    if (other.m === 0n) throw new Error('Division by zero')
    const scale = Math.max(0, PRECISION + 2 + digits(other.m) - digits(this.m))
    const numerator = this.m * pow10(scale)
    let quotient = numerator / other.m
    let exponent = this.e - other.e - scale
    const sticky = numerator % other.m !== 0n
    if (!sticky) {
      // An exact quotient takes Decimal's ideal exponent: 1 ÷ 8 is 0.125, not 0.1250000…
      const ideal = this.e - other.e
      while (exponent < ideal && quotient % 10n === 0n) {
        quotient /= 10n
        exponent += 1
      }
    }
    return new Dec(quotient, exponent).context(sticky)
  }

  abs(): Dec {
    return this.m < 0n ? new Dec(-this.m, this.e) : this
  }

  compare(other: Dec): number {
    const [a, b] = Dec.align(this, other)
    return a === b ? 0 : a < b ? -1 : 1
  }

  isInteger(): boolean {
    return this.e >= 0 || this.m % pow10(-this.e) === 0n
  }

  /** Python's round(d, places): quantize half-even. */
  round(places: number): Dec {
    return this.e >= -places ? this : new Dec(roundDrop(this.m, -places - this.e), -places)
  }

  toString(): string {
    const negative = this.m < 0n
    let text = (negative ? -this.m : this.m).toString()
    if (this.e >= 0) text += '0'.repeat(this.e)
    else {
      text = text.padStart(-this.e + 1, '0')
      text = `${text.slice(0, this.e)}.${text.slice(this.e)}`
    }
    return (negative ? '-' : '') + text
  }

  toNumber(): number {
    return Number(`${this.m}e${this.e}`)
  }
}

/** Python's f"{x:g}": 6 significant digits, trailing zeros dropped, exponent form when < 1e-4 or ≥ 1e6. */
export function formatG(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0'
  const exact = Dec.of(value)
  let m = roundDrop(exact.m, digits(exact.m) - 6)
  let e = exact.e + Math.max(0, digits(exact.m) - 6)
  const negative = m < 0n
  let text = (negative ? -m : m).toString()
  if (text.length > 6) {
    // 999999.5 → 1000000: one digit more after rounding up
    m = roundDrop(m, 1)
    e += 1
    text = (negative ? -m : m).toString()
  }
  const exponent = e + text.length - 1
  const sign = negative ? '-' : ''
  if (exponent < -4 || exponent >= 6) {
    const mantissa = text.length > 1 ? `${text[0]}.${text.slice(1)}`.replace(/\.?0+$/, '') : text
    const power = Math.abs(exponent).toString().padStart(2, '0')
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${power}`
  }
  return sign + new Dec(BigInt(text), e).toString().replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '')
}

/** 12 not 12.0; 3.5 stays 3.5; long fractions are rounded to 4 places for reading (evaluation._number). */
export function formatNumber(value: number | Dec): string {
  const number = value instanceof Dec ? value : Dec.of(value)
  if (number.isInteger()) {
    const whole = number.e >= 0 ? number.m * pow10(number.e) : number.m / pow10(-number.e)
    return whole.toString()
  }
  const rounded = number.round(4)
  const float = rounded.toNumber()
  // Decimal keeps the sign of a value that rounds to zero: -0.00001 → -0.0000 → float -0.0 → "-0"
  return formatG(float === 0 && number.m < 0n ? -0 : float)
}

export function formulaValue(checkType: CheckType, statistic: number, comparison: number): Dec {
  const actual = Dec.of(statistic)
  const expected = Dec.of(comparison)
  const hundred = new Dec(100n, 0)
  const positive = expected.compare(new Dec(0n, 0)) > 0
  switch (checkType) {
    case 'comparison_minus_statistics':
      return expected.minus(actual)
    case 'statistics_minus_comparison':
      return actual.minus(expected)
    case 'statistics_comparison_percentage':
      return positive ? actual.dividedBy(expected).times(hundred) : new Dec(0n, 0)
    case 'statistics_comparison_difference_comparison_percentage':
      return positive ? expected.minus(actual).abs().dividedBy(expected).times(hundred) : new Dec(0n, 0)
  }
  throw new Error(`Unknown check type ${checkType}; expected one of ${Object.keys(CHECK_TYPES).join(', ')}.`)
}

export function holds(value: Dec, operator: Operator, threshold: number): boolean {
  const order = value.compare(Dec.of(threshold))
  switch (operator) {
    case 'eq':
      return order === 0
    case 'lt':
      return order < 0
    case 'le':
      return order <= 0
    case 'gt':
      return order > 0
    case 'ge':
      return order >= 0
    case 'ne':
      return order !== 0
  }
  throw new Error(`Unknown operator ${operator}; expected one of ${Object.keys(OPERATORS).join(', ')}.`)
}

/** "Pass when actual − expected ≤ 0": the rule of a check, before or after any run. */
export function ruleInWords(checkType: CheckType, operator: Operator, threshold: number): string {
  return `Pass when ${CHECK_TYPES[checkType]} ${OPERATORS[operator]} ${formatNumber(threshold)}`
}

function arithmetic(checkType: CheckType, statistic: number, comparison: number): string {
  const actual = formatNumber(statistic)
  const expected = formatNumber(comparison)
  if (checkType === 'comparison_minus_statistics') return `${expected} − ${actual}`
  if (checkType === 'statistics_minus_comparison') return `${actual} − ${expected}`
  if (Dec.of(comparison).compare(new Dec(0n, 0)) <= 0) return `(expected ${expected} ≤ 0, so the percentage is 0)`
  if (checkType === 'statistics_comparison_percentage') return `${actual} ÷ ${expected} × 100`
  return `|${expected} − ${actual}| ÷ ${expected} × 100`
}

/** The whole verdict: "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail". */
export function evaluate(
  statistic: number | null,
  comparison: number | null,
  checkType: CheckType,
  operator: Operator,
  threshold: number,
): Verdict {
  const rule = ruleInWords(checkType, operator, threshold)
  if (statistic === null || statistic === undefined) {
    return { status: 'unknown', formulaValue: null, sentence: `${rule}: no statistic was measured → unknown` }
  }
  if (comparison === null || comparison === undefined) {
    return {
      status: 'unknown',
      formulaValue: null,
      sentence: `${rule}: no expected value yet (no earlier results) → unknown`,
    }
  }
  const value = formulaValue(checkType, statistic, comparison)
  const passed = holds(value, operator, threshold)
  const symbol = passed ? OPERATORS[operator] : NEGATED[operator]
  const sentence = `${rule}: ${arithmetic(checkType, statistic, comparison)} = ${formatNumber(value)} ${symbol} ${formatNumber(threshold)} → ${passed ? 'pass' : 'fail'}`
  return { status: passed ? 'pass' : 'fail', formulaValue: value.toNumber(), sentence }
}

/** Mirrors `Result.blocks`: a `block` check that failed or could not be evaluated stops a workflow. */
export function blocks(result: { failure_strategy: string; status: ResultStatus }): boolean {
  return result.failure_strategy === 'block' && (result.status === 'fail' || result.status === 'error')
}
