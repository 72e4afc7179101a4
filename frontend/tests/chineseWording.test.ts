import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { applyLocale } from '@/i18n'
import { comparisonInWords, dimensionLabel, formatDuration, RESULT_STATUS, RUN_STATUS, timeAgo } from '@/lib/format'
import { spanText, tallyInWords } from '@/lib/health'
import { bandInWords, SERIES } from '@/lib/trendOption'
import { errorFromResponse } from '@/http'
import ResultCard from '@/components/ResultCard.vue'
import StrategyTags from '@/components/StrategyTags.vue'
import type { Result } from '@/api/types'

// The shared wording in Simplified Chinese, as a Chinese reader expects it (written out here, not
// read from the catalogue): statuses, durations, the expected value's provenance, chart labels,
// the client's own error messages, and a result card's figures (实际值 / 期望值).
describe('the shared wording in Simplified Chinese', () => {
  beforeEach(() => applyLocale('zh-CN'))
  afterEach(() => applyLocale('en'))

  it('names statuses and dimensions with the words the platform uses', () => {
    expect(RESULT_STATUS.fail.label).toBe('失败')
    expect(RESULT_STATUS.unknown.hint).toBe('已测得实际值，但尚无期望值。')
    expect(RUN_STATUS.cancelled.label).toBe('已取消')
    expect(dimensionLabel('timeliness')).toBe('及时性')
    expect(dimensionLabel('uniqueness')).toBe('唯一性')
  })

  it('reads times, durations and tallies in Chinese units', () => {
    const now = Date.parse('2026-12-05T10:00:00Z')
    expect(timeAgo('2026-12-05T09:55:00Z', now)).toBe('5 分钟前')
    expect(timeAgo('2026-12-04T10:00:00Z', now)).toBe('昨天')
    expect(formatDuration(75)).toBe('1 分 15 秒')
    expect(spanText(3 * 86400)).toBe('3.0 天')
    const tally = { score: 75, checks: 7, passed: 3, failed: 1, errors: 1, unknown: 1, never_run: 1 }
    expect(tallyInWords(tally)).toBe('已得出结论的 4 个中 3 个通过 · 1 个出错 · 1 个未知 · 1 个从未运行')
  })

  it('says where the expected value came from, with DolphinScheduler’s names for the averages', () => {
    expect(comparisonInWords({ comparison_type: 'fix_value', comparison_source: {} })).toBe('检查上设定的固定值')
    expect(
      comparisonInWords({
        comparison_type: 'daily_avg',
        comparison_source: { type: 'daily_avg', baseline_runs: [4, 5], values: 2, window: 'last_7_runs' },
      }),
    ).toBe('日均值，基于 2 个更早的结果（运行 #4、#5），取最近 7 次运行')
  })

  it('labels the trend chart and its band in Chinese, and switches back', () => {
    expect([SERIES.statistic, SERIES.expected]).toEqual(['实际值', '期望值'])
    expect(bandInWords({ low: 90, high: 110, passes: 'outside' })).toBe('实际值 介于 90 和 110 之间 时失败')
    applyLocale('en')
    expect(SERIES.statistic).toBe('Statistic')
  })

  it('words the client’s own errors in Chinese', () => {
    expect(errorFromResponse(404, 'Not Found', null).message).toBe('未找到：它可能已被删除，或你无权查看。')
    expect(errorFromResponse(502, 'Bad Gateway', '<html>').message).toBe('服务器出错（502 Bad Gateway）。请重试；如果一直出现，请联系管理员。')
  })

  it('shows a result card’s statistic against the expected value', () => {
    const result = {
      id: 9,
      check: 3,
      check_name: 'orders · statuses present',
      check_version: 1,
      template: 'null_check',
      template_name: 'Null check',
      status: 'fail',
      statistics_value: 1,
      comparison_value: 0,
      comparison_type: 'fix_value',
      comparison_source: {},
      error_row_count: 1,
      error_rows_written: 1,
      rows_scanned: 3,
      has_error_rows: true,
      batch: 'lake · orders',
      failure_strategy: 'alert',
      blocks: false,
      verdict: '',
      formula: '',
      message: '',
      statistic_name: 'miss',
    } as unknown as Result
    const card = mount(ResultCard, { props: { result }, global: { stubs: { RouterLink: true, LinkButton: true } } })
    expect(card.findAll('.figure .label').map((label) => label.text())).toEqual(['实际值', '期望值', '不合格行数', '批次'])
    expect(card.find('[data-testid="statistic"]').text()).toBe('1')
    expect(card.text()).toContain('共扫描 3 行')
    const tags = mount(StrategyTags, { props: { strategy: 'block', blocks: true }, global: { stubs: { 'el-tag': { template: '<b><slot /></b>' } } } })
    expect(tags.findAll('b').map((tag) => tag.text())).toEqual(['失败时阻断', '正在阻断'])
  })
})
