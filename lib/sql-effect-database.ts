/**
 * The database of the SQL form of the second way (docs/patterns/sql-dedup.md): an Aurora
 * PostgreSQL Serverless v2 cluster that the consumers reach through the RDS Data API, so that
 * their functions need no VPC and no connection pool, with the dedup table created at deploy and
 * its expired rows deleted on a schedule that is alarmed like everything else.
 *
 * - The cluster: Serverless v2, from `minCapacity` ACUs (0: it pauses when idle, and the runtime
 *   retries `DatabaseResumingException` with a longer backoff) to `maxCapacity`; the Data API on;
 *   storage and the master user's secret encrypted with a customer-managed key; the master
 *   password managed by RDS in Secrets Manager (RDS rotates it), under a user name that is not the
 *   engine's default; IAM database authentication on; deletion protection; backups kept for 7
 *   days; the PostgreSQL log exported to CloudWatch Logs; a port that is not the default. It lives
 *   in isolated subnets of its own VPC (no NAT, no internet gateway: nothing in it calls out), with
 *   flow logs, or in a VPC given.
 * - The migration: `CREATE TABLE IF NOT EXISTS` and `CREATE INDEX IF NOT EXISTS` of the dedup
 *   table (aws/sql-dedup-table.ts), run through the Data API by a custom resource at every deploy
 *   that changes them.
 * - The expiry: an EventBridge Scheduler schedule calls the Data API's `ExecuteStatement` itself
 *   (a universal target: no function), deleting the rows past their expiry. A call that fails
 *   after the schedule's retries goes to a dead-letter queue, whose depth alarm notifies the
 *   alarm topic.
 *
 * {@link SqlEffectDatabase.connect} gives a consumer's function the variables the runtime reads
 * (aws/consumer-env.ts, `SQL_ENV`) and exactly the access it needs: the Data API's statement and
 * transaction calls on this cluster, and the secret's value.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IVpc, SubnetType } from 'aws-cdk-lib/aws-ec2';
import { PolicyStatement, Role, ServicePrincipal, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AuroraPostgresEngineVersion, type CfnDBCluster, ClusterInstance, Credentials, DatabaseCluster, DatabaseClusterEngine } from 'aws-cdk-lib/aws-rds';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { Universal } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { RedrivePermission } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct, DependencyGroup } from 'constructs';
import { AWS_CUSTOM_RESOURCE_PROVIDER_ID } from '../aws/cloudformation/template';
import { SQL_ENV } from '../aws/consumer-env';
import { DEFAULT_SQL_DEDUP_TABLE, SQL_IDENTIFIER_PATTERN, sqlDedupExpiryStatement, sqlDedupTableStatements } from '../aws/sql-dedup-table';
import { ControlTowerRule, declineControlTowerRule } from './control-tower';
import { addCustomerManagedKey } from './customer-managed-key';
import { addIsolatedVpc } from './isolated-vpc';
import { addMonitoredDlq, type MonitoredDlq } from './monitored-dlq';
import { sqlEffectTablesValue, type SqlConnectOptions } from './sql-effect-tables';
import { checkDurationRange, checkPattern } from './validation';

/** The Data API calls a consumer makes: its transaction and its statements, nothing else. */
export const DATA_API_CONSUMER_ACTIONS = [
  'rds-data:BeginTransaction',
  'rds-data:ExecuteStatement',
  'rds-data:BatchExecuteStatement',
  'rds-data:CommitTransaction',
  'rds-data:RollbackTransaction',
] as const;

/** Aurora Serverless v2's capacity range, in ACUs (0 only as a minimum: the cluster pauses). */
const ACU_RANGE = { min: 0, max: 256 } as const;

/** A database name PostgreSQL and the Data API take: a letter, then letters, digits and underscores, at most 63 in all. */
const DATABASE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** The one log group enhanced monitoring writes to, in every account and Region. */
const ENHANCED_MONITORING_LOG_GROUP = 'RDSOSMetrics';

/** Why the database's log groups use CloudWatch Logs' own encryption (CT.CLOUDWATCH.PR.3). */
const DATABASE_LOG_KEY_REASON =
  'CloudWatch Logs encrypts every log group at rest. A customer-managed key would change nothing about ' +
  'who may read the logs (IAM decides) and add a key policy to get wrong, with logs lost while the ' +
  'service cannot use the key. These logs hold the database\'s errors, network flows and the migration\'s ' +
  'calls, not the effects, which stay in the cluster under its own key.';

/** Why the migration function runs outside a VPC (CT.LAMBDA.PR.3). */
const MIGRATION_NO_VPC_REASON =
  'The migration function calls only the RDS Data API (an AWS API, over TLS, signed with its own role): ' +
  'the cluster is reached through the Data API, never through the network. A VPC would need an interface ' +
  'endpoint for the Data API in each zone to reach the same API, and protect nothing.';

/** The master user: not the engine's default (`postgres`), which an attacker would try first. */
const MASTER_USERNAME = 'eo_admin';

/** Not PostgreSQL's 5432: nothing outside the VPC reaches it anyway, and scanners look there first. */
const PORT = 5433;

/** A cluster that {@link SqlEffectDatabase} uses instead of making one. */
export interface ExistingSqlCluster {
  /** The cluster's ARN. */
  readonly clusterArn: string;
  /** The ARN of the Secrets Manager secret the Data API signs in with. */
  readonly secretArn: string;
  /**
   * The customer-managed key the secret is encrypted with.
   * @default - Secrets Manager's own key, which needs no grant
   */
  readonly secretKey?: IKey;
}

/** Props of {@link SqlEffectDatabase}. */
export interface SqlEffectDatabaseProps {
  /** The topic the expiry schedule's dead-letter queue alarm notifies. */
  readonly alarmTopic: ITopic;
  /**
   * A cluster of one's own, with the Data API on, instead of a new one: its ARN, the ARN of a
   * secret holding a database user's `username` and `password`, and the key that secret is
   * encrypted with (unless Secrets Manager's own). The dedup table is created in it and expired
   * as in a new one; the props that describe a new cluster are refused beside it.
   * @default - a new cluster
   */
  readonly existingCluster?: ExistingSqlCluster;
  /**
   * The VPC of the cluster (only the cluster: the functions reach it through the Data API).
   * @default - a new VPC: two Availability Zones, isolated subnets only, flow logs to CloudWatch Logs
   */
  readonly vpc?: IVpc;
  /**
   * The database the consumers' effects and dedup rows live in.
   * @default 'effects'
   */
  readonly databaseName?: string;
  /**
   * The dedup table, `name` or `schema.name`.
   * @default 'eo_dedup'
   */
  readonly dedupTable?: string;
  /**
   * The fewest Aurora capacity units the cluster scales down to; 0 lets it pause when idle (the
   * first call after a pause waits for it to resume, and the runtime retries it).
   * @default 0
   * @range 0 to 256, in steps of 0.5
   */
  readonly minCapacity?: number;
  /**
   * The most Aurora capacity units the cluster scales up to.
   * @default 4
   * @range 1 to 256, in steps of 0.5, and at least `minCapacity`
   */
  readonly maxCapacity?: number;
  /**
   * How often the rows past their expiry are deleted.
   * @default Duration.hours(1)
   * @range 5 minutes to 1 day
   */
  readonly expiryInterval?: Duration;
  /**
   * The key for the cluster's storage and its master user's secret.
   * @default - a new customer-managed key, rotated yearly
   */
  readonly encryptionKey?: IKey;
  /**
   * What happens to the cluster when it leaves the stack.
   * @default RemovalPolicy.SNAPSHOT
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** Who runs the migration's statements: the role and log group, when this database made them (else the stack's provider function's). */
interface MigrationRunner {
  readonly role?: Role;
  readonly logGroup?: LogGroup;
}

/** An Aurora PostgreSQL cluster for SQL effects, with the dedup table and its expiry. */
export class SqlEffectDatabase extends Construct {
  /** The cluster this construct made; undefined for an `existingCluster`. */
  public readonly cluster?: DatabaseCluster;
  /** The cluster's ARN, the Data API's `resourceArn`. */
  public readonly clusterArn: string;
  /** The database the effects and the dedup rows live in. */
  public readonly databaseName: string;
  /** The dedup table's name. */
  public readonly dedupTable: string;
  /** The ARN of the secret the Data API calls sign in with. */
  public readonly secretArn: string;
  /** The key the secret (and a new cluster's storage) is encrypted with; undefined when Secrets Manager's own key is. */
  public readonly secretKey?: IKey;
  /** The schedule that deletes the expired dedup rows. */
  public readonly expirySchedule: Schedule;
  /** Where an expiry the schedule could not run goes; its depth alarm notifies the alarm topic. */
  public readonly expiryDlq: MonitoredDlq;
  private runner?: MigrationRunner;
  private lastMigration?: Construct;
  /** Every statement of the migration, those `addSchema` adds later included: a connected function waits for all of them. */
  private readonly migrated = new DependencyGroup();

  constructor(scope: Construct, id: string, props: SqlEffectDatabaseProps) {
    super(scope, id);
    this.databaseName = props.databaseName ?? 'effects';
    checkPattern('databaseName', this.databaseName, DATABASE_NAME_PATTERN);
    this.dedupTable = props.dedupTable ?? DEFAULT_SQL_DEDUP_TABLE;
    checkPattern('dedupTable', this.dedupTable, SQL_IDENTIFIER_PATTERN);
    const expiryInterval = props.expiryInterval ?? Duration.hours(1);
    checkDurationRange('expiryInterval', expiryInterval, Duration.minutes(5), Duration.days(1));
    if (props.existingCluster) {
      refuseClusterProps(props);
      this.clusterArn = props.existingCluster.clusterArn;
      this.secretArn = props.existingCluster.secretArn;
      this.secretKey = props.existingCluster.secretKey;
    } else {
      this.secretKey = props.encryptionKey ?? addCustomerManagedKey(this, 'Key', 'Encrypts the SQL effects database: its storage and its master user secret');
      this.cluster = this.newCluster(props, this.secretKey);
      this.clusterArn = this.cluster.clusterArn;
      this.secretArn = (this.cluster.node.defaultChild as CfnDBCluster).attrMasterUserSecretSecretArn;
      this.keepPostgresLog(this.cluster);
    }
    this.runAtDeploy('Migration', this.dedupTable, sqlDedupTableStatements(this.dedupTable));
    this.expiryDlq = addMonitoredDlq(this, { consumerName: `${this.node.path} dedup expiry`, alarmTopic: props.alarmTopic, redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL } });
    Validations.of(this.expiryDlq.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is a dead-letter queue itself: the expiry schedule sends the calls it could not make to it, and its depth alarm notifies the alarm topic.',
    });
    this.expirySchedule = this.scheduleExpiry(expiryInterval);
  }

  /** The Serverless v2 cluster, as the file's comment describes it. */
  private newCluster(props: SqlEffectDatabaseProps, key: IKey): DatabaseCluster {
    const { minCapacity, maxCapacity } = checkedCapacity(props);
    return new DatabaseCluster(this, 'Cluster', {
      engine: DatabaseClusterEngine.auroraPostgres({ version: AuroraPostgresEngineVersion.VER_17_7 }),
      // Isolated subnets only: the cluster calls nothing, and only the Data API reaches it.
      vpc: props.vpc ?? addIsolatedVpc(this, { id: 'Vpc', flowLogsId: 'FlowLogs', subnetName: 'Database', flowLogKeyReason: DATABASE_LOG_KEY_REASON }),
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      writer: ClusterInstance.serverlessV2('Writer', { autoMinorVersionUpgrade: true }),
      serverlessV2MinCapacity: minCapacity,
      serverlessV2MaxCapacity: maxCapacity,
      enableDataApi: true,
      defaultDatabaseName: this.databaseName,
      credentials: Credentials.fromUsername(MASTER_USERNAME, { encryptionKey: key }),
      manageMasterUserPassword: true,
      monitoringInterval: Duration.minutes(1),
      monitoringRole: this.monitoringRole(),
      storageEncrypted: true,
      storageEncryptionKey: key,
      iamAuthentication: true,
      deletionProtection: true,
      backup: { retention: Duration.days(7) },
      cloudwatchLogsExports: ['postgresql'],
      copyTagsToSnapshot: true,
      port: PORT,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.SNAPSHOT,
    });
  }

  /**
   * Gives a consumer's function the variables the runtime reads to reach this database, and the
   * Data API calls and secret read it needs: nothing more. The tables its handlers write to, given
   * in `options.effectTables`, go in `SQL_EFFECT_TABLES` for the tools (lib/sql-effect-tables.ts).
   * The function and its event source mappings are created after every statement of the
   * migration, those of an `addSchema` called later included, so that no event is delivered before
   * its tables exist.
   * @throws Error for an `effectTables` entry that is not a plain identifier, is given twice or is the dedup table
   */
  public connect(fn: LambdaFunction, options: SqlConnectOptions = {}): void {
    const effectTables = options.effectTables && sqlEffectTablesValue(options.effectTables, this.dedupTable);
    fn.addEnvironment(SQL_ENV.resourceArn, this.clusterArn);
    fn.addEnvironment(SQL_ENV.secretArn, this.secretArn);
    fn.addEnvironment(SQL_ENV.database, this.databaseName);
    fn.addEnvironment(SQL_ENV.dedupTable, this.dedupTable);
    if (effectTables) fn.addEnvironment(SQL_ENV.effectTables, effectTables);
    this.grantStatements(fn);
    // The function and everything under it (its event source mappings) wait for the tables: a
    // mapping made first would deliver events onto a schema that is not there yet.
    fn.node.addDependency(this.migrated);
  }

  /** Grants the Data API's statement and transaction calls on this cluster, and the secret's value. */
  public grantStatements(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: [...DATA_API_CONSUMER_ACTIONS], resources: [this.clusterArn] }));
    this.grantSecret(grantee);
  }

  /** The secret's value, and its key as Secrets Manager uses it: what the Data API reads on the caller's behalf. */
  private grantSecret(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [this.secretArn] }));
    if (this.secretKey === undefined) return;
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({
      actions: ['kms:Decrypt'],
      resources: [this.secretKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` } },
    }));
  }

  /**
   * The role enhanced monitoring writes with: the statements of AWS's
   * `AmazonRDSEnhancedMonitoringRole`, inline, so that no managed policy can change under it.
   */
  private monitoringRole(): Role {
    const role = new Role(this, 'MonitoringRole', { assumedBy: new ServicePrincipal('monitoring.rds.amazonaws.com') });
    const logs = (resource: string) => Stack.of(this).formatArn({ service: 'logs', resource: 'log-group', resourceName: resource, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy'], resources: [logs(ENHANCED_MONITORING_LOG_GROUP)] }));
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams', 'logs:GetLogEvents'], resources: [logs(`${ENHANCED_MONITORING_LOG_GROUP}:log-stream:*`)] }));
    Validations.of(role.node.findChild('DefaultPolicy')).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${ENHANCED_MONITORING_LOG_GROUP}:log-stream:*]`,
      reason: 'Enhanced monitoring writes one stream per instance, named by the instance\'s resource id, which exists only once the instance does, and the instance needs this role first: the streams of the one log group RDS writes are as narrow as it can be.',
    });
    return role;
  }

  /**
   * The log group RDS exports the PostgreSQL log to, made here first so that it has a retention
   * (RDS would make one that keeps everything for ever).
   */
  private keepPostgresLog(cluster: DatabaseCluster): void {
    const logGroup = new LogGroup(this, 'PostgresLog', {
      logGroupName: `/aws/rds/cluster/${cluster.clusterIdentifier}/postgresql`,
      retention: RetentionDays.ONE_YEAR,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    declineControlTowerRule(logGroup, ControlTowerRule.LOG_GROUP_ENCRYPTED, DATABASE_LOG_KEY_REASON);
    // Its name holds the cluster's: the writer, whose PostgreSQL writes the log, waits for it instead.
    cluster.node.findChild('Writer').node.addDependency(logGroup);
  }

  /**
   * Adds the consumers' own tables (or indexes, or any DDL) to the migration: `statements` run
   * through the Data API at deploy, one after another and after the dedup table's, at create and
   * whenever one of them changes. Each runs again on such a change, so write each to be safe to
   * run twice (`CREATE TABLE IF NOT EXISTS ...`). One statement each: the Data API runs one per call.
   *
   * @param id names this group of statements in the construct tree (e.g. the consumer's name)
   * @throws Error when `statements` is empty or one of them is blank
   */
  public addSchema(id: string, statements: readonly string[]): void {
    if (statements.length === 0) throw new Error(`addSchema('${id}'): give at least one statement`);
    const blank = statements.findIndex((statement) => statement.trim() === '');
    if (blank >= 0) throw new Error(`addSchema('${id}'): statement ${blank} is blank`);
    this.runAtDeploy(`Schema${id}`, id, statements);
  }

  /**
   * The role and log group the migration's statements run with. A stack has one provider function
   * for every AwsCustomResource in it, made with the first one's role and log group, and any later
   * one's are ignored: the database whose statements come first in the stack makes them; the
   * statements of any other run as that function's role, which `runAtDeploy` grants this
   * database's secret.
   */
  private migrationRunner(): MigrationRunner {
    if (this.runner) return this.runner;
    if (Stack.of(this).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER_ID)) {
      this.runner = {};
      return this.runner;
    }
    const role = new Role(this, 'MigrationRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    const logGroup = new LogGroup(this, 'MigrationLog', { retention: RetentionDays.ONE_YEAR });
    logGroup.grantWrite(role);
    declineControlTowerRule(logGroup, ControlTowerRule.LOG_GROUP_ENCRYPTED, DATABASE_LOG_KEY_REASON);
    this.grantSecret(role);
    this.runner = { role, logGroup };
    return this.runner;
  }

  /**
   * One custom resource per statement, each after the one before it (the first after a new
   * cluster's writer): the migration runs in the order its statements were given.
   */
  private runAtDeploy(idPrefix: string, group: string, statements: readonly string[]): void {
    const { role, logGroup } = this.migrationRunner();
    statements.forEach((statement, index) => {
      const call = {
        service: 'rds-data',
        action: 'ExecuteStatement',
        // DDL cut short by a call's timeout can leave a half-made structure: the API reference advises continuing it.
        parameters: { resourceArn: this.clusterArn, secretArn: this.secretArn, database: this.databaseName, sql: statement, continueAfterTimeout: true },
        physicalResourceId: PhysicalResourceId.of(`${group}-${index}`),
      };
      const migration = new AwsCustomResource(this, `${idPrefix}${index}`, {
        onCreate: call,
        onUpdate: call,
        policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: ['rds-data:ExecuteStatement'], resources: [this.clusterArn] })]),
        role,
        logGroup,
        installLatestAwsSdk: false,
      });
      // A new cluster's writer must be up before the first statement can run; each other waits for the one before.
      // Without a role of its own, this database's first statement runs as the provider function's role: it reads the secret.
      if (role === undefined && this.lastMigration === undefined) this.grantSecret(migration.grantPrincipal);
      const previous = this.lastMigration ?? this.cluster?.node.findChild('Writer');
      if (previous) migration.node.addDependency(previous);
      this.lastMigration = migration;
      this.migrated.add(migration);
    });
    const provider = Stack.of(this).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER_ID);
    if (provider) declineControlTowerRule(provider, ControlTowerRule.LAMBDA_IN_VPC, MIGRATION_NO_VPC_REASON);
  }

  /**
   * Deletes the expired rows on a schedule that calls the Data API itself; a failed call goes to
   * the DLQ. Its role is its own: the statement on the cluster, and the secret with its key, which
   * the Data API reads as the caller (without them every run is denied).
   */
  private scheduleExpiry(interval: Duration): Schedule {
    const role = new Role(this, 'ExpiryRole', { assumedBy: new ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } } }) });
    this.grantSecret(role);
    const target = new Universal({
      role,
      service: 'rdsdata',
      action: 'executeStatement',
      input: ScheduleTargetInput.fromObject({ ResourceArn: this.clusterArn, SecretArn: this.secretArn, Database: this.databaseName, Sql: sqlDedupExpiryStatement(this.dedupTable) }),
      policyStatements: [new PolicyStatement({ actions: ['rds-data:ExecuteStatement'], resources: [this.clusterArn] })],
      deadLetterQueue: this.expiryDlq.queue,
      retryAttempts: 3,
      maxEventAge: Duration.hours(1),
    });
    const schedule = new Schedule(this, 'Expiry', { schedule: ScheduleExpression.rate(interval), target, description: `Deletes the rows of ${this.dedupTable} past their expiry` });
    return schedule;
  }
}

/** The props that describe a new cluster, which an existing one does not take. */
const NEW_CLUSTER_PROPS = ['vpc', 'minCapacity', 'maxCapacity', 'encryptionKey', 'removalPolicy'] as const;

function refuseClusterProps(props: SqlEffectDatabaseProps): void {
  const given = NEW_CLUSTER_PROPS.filter((name) => props[name] !== undefined);
  if (given.length > 0) throw new Error(`${given.join(', ')} describe a new cluster and cannot be given with existingCluster`);
}

function checkedCapacity(props: SqlEffectDatabaseProps): { minCapacity: number; maxCapacity: number } {
  const minCapacity = props.minCapacity ?? 0;
  const maxCapacity = props.maxCapacity ?? 4;
  checkCapacity('minCapacity', minCapacity, ACU_RANGE.min);
  checkCapacity('maxCapacity', maxCapacity, 1);
  if (maxCapacity < minCapacity) throw new Error(`maxCapacity must be at least minCapacity (given ${maxCapacity} and ${minCapacity})`);
  return { minCapacity, maxCapacity };
}

function checkCapacity(name: string, value: number, min: number): void {
  if (!Number.isInteger(value * 2) || value < min || value > ACU_RANGE.max) throw new Error(`${name} must be ${min}..${ACU_RANGE.max} ACUs in steps of 0.5 (given ${value})`);
}
