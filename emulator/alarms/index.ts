export { AlarmEvaluator, ALARM_EVALUATOR_DEFAULTS } from './alarm-evaluator';
export type { AlarmEvaluatorOptions } from './alarm-evaluator';
export { evaluateAlarm, formatDouble, isBreaching, thresholdReason } from './evaluation';
export type { Evaluation } from './evaluation';
export { alarmArn, alarmNotification, alarmSubject, cloudWatchTime, regionName } from './notification';
export type { AlarmLocation, AlarmNotification, AlarmTrigger, MathTrigger, MetricTrigger, TriggerMetric } from './notification';
export { AlarmState, isQueueDepthAlarm, watchedQueueName } from './types';
export type { AlarmStateValue, AlarmTransition, ComparisonOperator, Datapoint, AlarmMetric, MetricAlarm, TreatMissingData } from './types';
