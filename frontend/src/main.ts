import { createApp } from 'vue'
import ElementPlus from 'element-plus'
import 'element-plus/dist/index.css'
import formCreate from '@form-create/element-ui'
import App from './App.vue'
import YamlEditor from './components/YamlEditor.vue'
import { router } from './router'
import { applyLocale, i18n, initialLocale } from './i18n'
import { sessionUser } from './lib/session'
import './styles/main.css'
import './styles/dialogs.css'

// The check form's YAML fields (rules/forms.py emits `dq-yaml-editor` for form_type yaml).
formCreate.component('dq-yaml-editor', YamlEditor)

// Element Plus before form-create: form-create renders Element Plus components by name.
// The saved language, else the browser's (src/i18n); set before the first screen renders.
applyLocale(initialLocale(sessionUser.language))

createApp(App).use(i18n).use(ElementPlus).use(formCreate).use(router).mount('#app')
