import type { Ref } from 'vue'
import { onBeforeRouteLeave } from 'vue-router'
import { ElMessageBox } from 'element-plus'
import { translate } from '@/i18n'
/** Asks before the router leaves a page whose form has unsaved changes (`dirty`). */
export function useLeaveGuard(dirty: Ref<boolean>) {
  onBeforeRouteLeave(async () => {
    if (!dirty.value) return true
    try {
      await ElMessageBox.confirm(translate('common.leave.message'), translate('common.leave.title'), {
        type: 'warning',
        confirmButtonText: translate('common.leave.confirm'),
        cancelButtonText: translate('common.leave.stay'),
      })
      return true
    } catch {
      return false
    }
  })
}
