import { describe, expect, it } from 'vitest'
import { dolphinSchedulerDatasourceIds } from '@/api/imports'

describe('dolphinSchedulerDatasourceIds', () => {
  it('lists the datasource ids of DATA_QUALITY tasks only, whether taskParams is an object or JSON text', () => {
    const exported = [
      {
        taskDefinitionList: [
          { taskType: 'DATA_QUALITY', taskParams: { ruleInputParameter: { src_datasource_id: 1, target_datasource_id: '12' } } },
          { taskType: 'SQL', taskParams: { ruleInputParameter: { src_datasource_id: 99 } } },
        ],
      },
      {
        taskDefinitionList: [
          { taskType: 'data_quality', taskParams: JSON.stringify({ ruleInputParameter: { src_datasource_id: '2' } }) },
          { taskType: 'DATA_QUALITY', taskParams: '{not json' },
          { taskType: 'DATA_QUALITY', taskParams: { ruleInputParameter: { src_datasource_id: '' } } },
        ],
      },
    ]

    expect(dolphinSchedulerDatasourceIds(exported)).toEqual(['1', '2', '12'])
  })

  it('reads one workflow exported on its own and finds nothing in something else', () => {
    const one = { taskDefinitionList: [{ taskType: 'DATA_QUALITY', taskParams: { ruleInputParameter: { src_datasource_id: 7 } } }] }

    expect(dolphinSchedulerDatasourceIds(one)).toEqual(['7'])
    expect(dolphinSchedulerDatasourceIds({ hello: 1 })).toEqual([])
    expect(dolphinSchedulerDatasourceIds(null)).toEqual([])
  })
})
