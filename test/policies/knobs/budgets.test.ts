import { BUDGET_KNOBS } from '../../../src/knobs/budget-knobs'
import { runSliceScenarios } from './harness'
import { budgetScenarios } from './scenarios/budgets'

runSliceScenarios(BUDGET_KNOBS, budgetScenarios)
