/**
 * The metrics of a consumer that CloudWatch has no `metric...()` method for: the runtime's (its
 * EMF lines, by `service`) and the event source mapping's own (by `EventSourceMappingUUID`). Each
 * is a one-minute Sum, as the consumer's alarms and the pipeline dashboard read them.
 */
import { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS_NAMESPACE, type MetricName } from '../aws/metrics';

const PERIOD = Duration.minutes(1);

/** A runtime metric (Powertools EMF), dimensioned by the consumer's service name. */
export function runtimeMetric(metricName: MetricName, serviceName: string, label?: string): Metric {
  return new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { service: serviceName }, statistic: 'Sum', period: PERIOD, ...(label !== undefined && { label }) });
}

/** One of the event source mapping's own metrics (`AWS/Lambda`, by `EventSourceMappingUUID`); they exist when its `MetricsConfig` lists `EventCount`. */
export function mappingMetric(metricName: string, mappingUuid: string, label?: string): Metric {
  return new Metric({ namespace: 'AWS/Lambda', metricName, dimensionsMap: { EventSourceMappingUUID: mappingUuid }, statistic: 'Sum', period: PERIOD, ...(label !== undefined && { label }) });
}
