import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mount } from '@vue/test-utils'
import { createMemoryHistory, createRouter } from 'vue-router'
import ElementPlus from 'element-plus'
import type { LatestResult, ResultsSummary } from '@/api/types'
import SummaryHeader from '@/pages/results/SummaryHeader.vue'
import { applyLocale } from '@/i18n'

const Empty = { template: '<div />' }
const router = createRouter({
  history: createMemoryHistory(),
  routes: ['/results', '/checks', '/runs'].map((path) => ({ path, name: path.slice(1), component: Empty })),
})

beforeAll(() => router.push('/results'))

const SINCE = '2026-11-29T08:00:00Z'
const failing = (check: number, name: string, blocks: boolean): LatestResult => ({
  check,
  check_name: name,
  result: check * 10,
  run: 1,
  status: 'fail',
  statistics_value: 1,
  created_at: SINCE,
  blocks,
})

function summary(overrides: Partial<ResultsSummary> = {}): ResultsSummary {
  return {
    since: SINCE,
    hours: 24,
    checks: 40,
    checks_run: 38,
    results: 60,
    passed: 20,
    failed: 36,
    errors: 2,
    unknown: 2,
    pass_rate: 34.5,
    open_failures: 38,
    blocking_failures: 4,
    // As the server sends them: blocking ones first.
    failing_checks: [
      failing(1, 'orders · ids unique', true),
      failing(2, 'orders · statuses known', true),
      failing(3, 'orders · amounts', false),
      failing(4, 'orders · e-mails', false),
    ],
    runs: 5,
    active_runs: 1,
    ...overrides,
  }
}

const mountHeader = (value: ResultsSummary) =>
  mount(SummaryHeader, { props: { summary: value }, global: { plugins: [router, ElementPlus] } })
const href = (wrapper: ReturnType<typeof mountHeader>, testid: string) =>
  decodeURIComponent(wrapper.get(`[data-testid=${testid}]`).attributes('href')!)

describe('the dashboard header', () => {
  it('names the blocking checks under "blocking" and the others apart', () => {
    const wrapper = mountHeader(summary())
    expect(wrapper.get('[data-testid=summary-blocking]').text()).toBe(
      '4 blocking: orders · ids unique, orders · statuses known and 2 more',
    )
    expect(wrapper.get('[data-testid=summary-alerting]').text()).toBe('also orders · amounts, orders · e-mails')
  })

  it('links every count to the list it counts', () => {
    const wrapper = mountHeader(summary())
    const window = `since=${SINCE}`
    expect(href(wrapper, 'summary-open-failures')).toBe(`/results?${window}&latest=true&status=fail,error`)
    expect(href(wrapper, 'summary-blocking-count')).toBe(`/results?${window}&latest=true&status=fail,error&blocks=true`)
    expect(href(wrapper, 'summary-more')).toBe(`/results?${window}&latest=true&status=fail,error`)
    expect(href(wrapper, 'summary-passed')).toBe(`/results?${window}&status=pass`)
    expect(href(wrapper, 'summary-evaluated')).toBe(`/results?${window}&status=pass,fail,error`)
    expect(href(wrapper, 'summary-unknown')).toBe(`/results?${window}&status=unknown`)
    expect(href(wrapper, 'summary-checks')).toBe('/checks')
    expect(href(wrapper, 'summary-checks-run')).toBe(`/results?${window}`)
    expect(href(wrapper, 'summary-runs')).toBe(`/runs?${window}`)
    expect(href(wrapper, 'summary-active-runs')).toBe('/runs?status=queued,running')
    // The "and N more" counts what the header did not name: 38 open − 4 named.
    expect(wrapper.get('[data-testid=summary-more]').text()).toBe('34 more')
  })

  it('says all is well without links to empty lists', () => {
    const wrapper = mountHeader(summary({ open_failures: 0, blocking_failures: 0, failing_checks: [] }))
    expect(wrapper.get('[data-testid=summary-failing]').text()).toBe("Every check's latest result is fine")
    expect(wrapper.find('[data-testid=summary-blocking]').exists()).toBe(false)
  })
})

describe('the dashboard header in Chinese', () => {
  beforeAll(() => applyLocale('zh-CN'))
  afterAll(() => applyLocale('en'))

  it('says every label and count in Chinese, with Chinese punctuation', () => {
    const wrapper = mountHeader(summary())
    const labels = wrapper.findAll('.label').map((label) => label.text())
    expect(labels).toEqual(['检查', '通过率 · 24 小时', '未解决的失败', '运行 · 24 小时'])
    expect(wrapper.get('[data-testid=summary-blocking]').text()).toBe(
      '4 个阻断：orders · ids unique、orders · statuses known，另有 2 个',
    )
    expect(wrapper.get('[data-testid=summary-alerting]').text()).toBe('另外：orders · amounts、orders · e-mails')
    // 20 of the 58 evaluated (20 passed + 36 failed + 2 errors) passed; 2 still wait for an expected value.
    expect(wrapper.text()).toContain('58 个已判定结果中 20 个通过')
    expect(wrapper.text()).toContain('2 个尚无期望值')
    expect(wrapper.get('[data-testid=summary-active-runs]').text()).toBe('1 个正在运行')
    // No English sentence is left over (the check names are the user's own).
    const withoutNames = wrapper.text().replace(/orders · [\w -]+/g, '')
    expect(withoutNames).not.toMatch(/[A-Za-z]{3,}/)
  })

  it('says all is well in Chinese', () => {
    const wrapper = mountHeader(summary({ open_failures: 0, blocking_failures: 0, failing_checks: [], active_runs: 0 }))
    expect(wrapper.get('[data-testid=summary-failing]').text()).toBe('所有检查的最新结果均正常')
    expect(wrapper.text()).toContain('当前没有运行')
  })
})
