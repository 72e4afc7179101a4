import { describe, expect, it } from 'vitest'
import { collectMessages, initialLocale, localeOf } from '../src/i18n'

describe('the app language', () => {
  it('starts in the saved language whatever the browser says', () => {
    expect(initialLocale('zh-hans', ['en-US'])).toBe('zh-CN')
    expect(initialLocale('en', ['zh-CN'])).toBe('en')
  })

  it('follows the first language of the browser it speaks when nothing is saved', () => {
    expect(initialLocale('', ['fr-FR', 'zh-TW', 'en'])).toBe('zh-CN')
    expect(initialLocale('', ['de', 'en-GB'])).toBe('en')
    expect(initialLocale('', ['fr'])).toBe('en')
  })

  it('reads DolphinScheduler and Django spellings of Chinese alike', () => {
    for (const tag of ['zh_CN', 'zh-CN', 'zh-Hans', 'zh-hans', 'zh']) expect(localeOf(tag)).toBe('zh-CN')
    for (const tag of ['en_US', 'en', 'fr', '']) expect(localeOf(tag)).toBe('en')
  })

  it('files each locale area under its own key', () => {
    const messages = collectMessages({
      '../locales/en/checks.json': { default: { title: 'Checks' } },
      '../locales/zh-CN/checks.json': { default: { title: '检查' } },
      '../locales/fr/checks.json': { default: { title: 'Contrôles' } },
    })
    expect(messages).toEqual({ en: { checks: { title: 'Checks' } }, 'zh-CN': { checks: { title: '检查' } } })
  })
})
