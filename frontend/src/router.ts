import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router'
import { translate } from './i18n'
// meta.title is a key of locales/<locale>/layout.json's `title`, read when the page opens.
// History mode: Django serves the shell for these paths too (dq_platform/urls.py), so a reload
// or a shared link opens the same page.
const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/health' },
  { path: '/health', name: 'health', component: () => import('./pages/health/HealthPage.vue'), meta: { title: 'health' } },
  {
    path: '/health/datasources/:id(\\d+)',
    name: 'datasource-health',
    component: () => import('./pages/health/HealthPage.vue'),
    props: (route) => ({ id: Number(route.params.id) }),
    meta: { title: 'datasourceHealth', nav: 'health' },
  },
  { path: '/checks', name: 'checks', component: () => import('./pages/checks/ChecksPage.vue'), meta: { title: 'checks' } },
  {
    path: '/checks/new',
    name: 'check-new',
    component: () => import('./pages/checks/CheckEditPage.vue'),
    meta: { title: 'newCheck', nav: 'checks' },
  },
  {
    path: '/checks/:id(\\d+)',
    name: 'check-edit',
    component: () => import('./pages/checks/CheckEditPage.vue'),
    props: (route) => ({ id: Number(route.params.id) }),
    meta: { title: 'check', nav: 'checks' },
  },
  {
    path: '/imports/dolphinscheduler',
    name: 'import-dolphinscheduler',
    component: () => import('./pages/imports/DolphinSchedulerImportPage.vue'),
    meta: { title: 'importDolphinScheduler', nav: 'checks' },
  },
  { path: '/runs', name: 'runs', component: () => import('./pages/runs/RunsPage.vue'), meta: { title: 'runs' } },
  {
    path: '/runs/:id(\\d+)',
    name: 'run',
    component: () => import('./pages/runs/RunPage.vue'),
    props: (route) => ({ id: Number(route.params.id) }),
    meta: { title: 'run', nav: 'runs' },
  },
  { path: '/results', name: 'results', component: () => import('./pages/results/ResultsPage.vue'), meta: { title: 'results' } },
  {
    path: '/results/:id(\\d+)/error-rows',
    name: 'error-rows',
    component: () => import('./pages/results/ErrorRowsPage.vue'),
    props: (route) => ({ id: Number(route.params.id) }),
    meta: { title: 'errorRows', nav: 'results' },
  },
  {
    path: '/datasources',
    name: 'datasources',
    component: () => import('./pages/datasources/DatasourcesPage.vue'),
    meta: { title: 'datasources' },
  },
  {
    path: '/templates',
    name: 'templates',
    component: () => import('./pages/templates/TemplatesPage.vue'),
    meta: { title: 'ruleTemplates' },
  },
  // Schedules, alert channels and incidents (watching/).
  { path: '/schedules', name: 'schedules', component: () => import('./pages/watching/SchedulesPage.vue'), meta: { title: 'schedules' } },
  { path: '/incidents', name: 'incidents', component: () => import('./pages/watching/IncidentsPage.vue'), meta: { title: 'incidents' } },
  { path: '/alert-channels', name: 'alert-channels', component: () => import('./pages/watching/AlertChannelsPage.vue'), meta: { title: 'alertChannels' } },
  // Registered batches and the tables they belong to (gates/).
  { path: '/batches', name: 'batches', component: () => import('./pages/batches/BatchesPage.vue'), meta: { title: 'batches' } },
  {
    path: '/batches/:id(\\d+)',
    name: 'batch',
    component: () => import('./pages/batches/BatchPage.vue'),
    props: (route) => ({ id: Number(route.params.id) }),
    meta: { title: 'batch', nav: 'batches' },
  },
  {
    path: '/tables/:datasource(\\d+)/:table',
    name: 'table',
    component: () => import('./pages/batches/TablePage.vue'),
    props: (route) => ({ datasource: Number(route.params.datasource), table: String(route.params.table) }),
    meta: { title: 'table', nav: 'batches' },
  },
  { path: '/:rest(.*)*', name: 'not-found', component: () => import('./pages/NotFoundPage.vue'), meta: { title: 'notFound' } },
]

export const router = createRouter({
  history: createWebHistory('/'),
  routes,
  scrollBehavior: (_to, _from, saved) => saved ?? { top: 0 },
})

router.afterEach((to) => {
  const title = to.meta.title as string | undefined
  const app = translate('layout.appName')
  document.title = title ? `${translate(`layout.title.${title}`)} · ${app}` : app
})

// After a new release the old page's lazy chunks are gone from the server: open the page the
// user asked for from the new build, once (sessionStorage stops a reload loop).
const STALE_CHUNK = /Failed to fetch dynamically imported module|Importing a module script failed|Unable to preload CSS/i
router.onError((error: unknown, to) => {
  const key = 'dq-reloaded-for'
  if (!STALE_CHUNK.test(String((error as Error)?.message)) || sessionStorage.getItem(key) === to.fullPath) return
  sessionStorage.setItem(key, to.fullPath)
  window.location.assign(to.fullPath)
})
