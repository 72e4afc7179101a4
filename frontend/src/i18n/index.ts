/**
 * The browser app's languages: English and Simplified Chinese (vue-i18n, Composition API).
 *
 * Messages live in `src/locales/<locale>/<area>.json`, one file per area of the app, the same keys
 * in both languages (`tests/test_translations.py` checks it, and that no component shows literal
 * text). A component asks `const { t } = useI18n()` and writes `t('<area>.<key>')`; code outside a
 * component (lib/, composables) uses `translate` from here.
 *
 * The language is the user's saved choice (written into the page by Django), else the browser's;
 * every API request carries it as Accept-Language so the server answers in it too.
 */
import { computed } from 'vue'
import { createI18n } from 'vue-i18n'
import dayjs from 'dayjs'
import 'dayjs/locale/zh-cn'
import elementEn from 'element-plus/es/locale/lang/en'
import elementZhCn from 'element-plus/es/locale/lang/zh-cn'

export const LOCALES = ['en', 'zh-CN'] as const
export type Locale = (typeof LOCALES)[number]

/** What each language is called in itself, for the switcher. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '简体中文' }

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- nested JSON of strings
type Messages = Record<string, any>

/** `{en: {checks: {...}, common: {...}}, 'zh-CN': {...}}` from every locales/<locale>/<area>.json. */
export function collectMessages(files: Record<string, { default: Messages } | Messages>): Record<Locale, Messages> {
  const messages = Object.fromEntries(LOCALES.map((locale) => [locale, {}])) as Record<Locale, Messages>
  for (const [path, module] of Object.entries(files)) {
    const match = /locales\/([^/]+)\/([^/]+)\.json$/.exec(path)
    if (!match || !(LOCALES as readonly string[]).includes(match[1])) continue
    const content = ('default' in module ? module.default : module) as Messages
    messages[match[1] as Locale][match[2]] = content
  }
  return messages
}

/** 'zh', 'zh-CN', 'zh-Hans', 'zh_CN', 'zh-hans' → 'zh-CN'; anything else → 'en'. */
export function localeOf(tag: string | null | undefined): Locale {
  return /^zh([-_](cn|hans|sg))?$/i.test((tag ?? '').trim()) ? 'zh-CN' : 'en'
}

/** The user's saved language, else the first of the browser's languages we speak. */
export function initialLocale(saved: string | null | undefined, browser: readonly string[] = navigator.languages ?? []): Locale {
  if (saved) return localeOf(saved)
  for (const tag of browser) {
    if (/^zh/i.test(tag)) return 'zh-CN'
    if (/^en/i.test(tag)) return 'en'
  }
  return 'en'
}

const files = import.meta.glob<{ default: Messages }>('../locales/*/*.json', { eager: true })

export const i18n = createI18n<[Messages], Locale, false>({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: collectMessages(files),
  missingWarn: false,
  fallbackWarn: false,
})

/** The current language, reactive. */
export const currentLocale = computed<Locale>(() => i18n.global.locale.value as Locale)

/** Element Plus's own texts (pagination, date pickers, empty tables) in the current language. */
export const elementLocale = computed(() => (currentLocale.value === 'zh-CN' ? elementZhCn : elementEn))

/** Switches the whole app: messages, Element Plus, dates, the page's lang attribute. */
export function applyLocale(locale: Locale): void {
  i18n.global.locale.value = locale
  dayjs.locale(locale === 'zh-CN' ? 'zh-cn' : 'en')
  if (typeof document !== 'undefined') document.documentElement.lang = locale === 'zh-CN' ? 'zh-CN' : 'en'
}

/** For code outside components: `translate('common.language')`. */
export function translate(key: string, values?: Record<string, unknown>): string {
  // A plain signature: vue-i18n's typed `t` is too deep for TypeScript over a loose message schema.
  const { t } = i18n.global as unknown as { t: (key: string, values?: Record<string, unknown>) => string }
  return values ? t(key, values) : t(key)
}
