import { ref } from 'vue'
import { useRouter } from 'vue-router'
import { ElMessage } from 'element-plus'
import { startRun } from '@/api/runs'
import { errorMessage } from '@/http'
import { translate } from '@/i18n'
/** "Run now" for one check or a selection: the API answers 202 with the run, whose page shows it live. */
export function useRunChecks() {
  const router = useRouter()
  const starting = ref(false)

  async function runChecks(ids: number[]) {
    if (!ids.length) return
    starting.value = true
    try {
      const run = await startRun(ids)
      ElMessage.success(translate(ids.length === 1 ? 'common.runQueuedOne' : 'common.runQueued', { id: run.id, count: ids.length }))
      await router.push({ name: 'run', params: { id: run.id } })
    } catch (error) {
      ElMessage.error(errorMessage(error))
    } finally {
      starting.value = false
    }
  }

  return { runChecks, starting }
}
