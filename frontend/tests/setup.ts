// Components under test find vue-i18n as the app installs it (src/main.ts), in English.
import { config } from '@vue/test-utils'
import { applyLocale, i18n } from '../src/i18n'

applyLocale('en')
config.global.plugins = [...(config.global.plugins ?? []), i18n]
