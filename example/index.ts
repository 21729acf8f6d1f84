/** The example app: the event pipeline stack, its consumers' handlers, and the registry of generated consumers. */
export { EventPipelineStack } from './event-pipeline-stack';
export type { AddConsumer, EventPipelineStackProps, SqlClusterArns } from './event-pipeline-stack';
export { SQL_CLUSTER_CONTEXT, sqlClusterFromContext } from './sql-cluster-context';
export { MANAGED_INSTANCES_CONTEXT, managedInstancesFromContext } from './managed-instances-context';
