import Foundation
import Kafka
import Postgres
import Runtime

/// Where the shared infrastructure is, and the one place the services' Kafka and PostgreSQL clients are configured from.
///
/// Read once at start: the Kafka connection (`KAFKA_BROKERS` and the security settings, ``KafkaCluster/init(_:files:)``),
/// `DATABASE_URL` and `DATABASE_POOL_SIZE`, the group settings `KAFKA_SESSION_TIMEOUT_MS`, `KAFKA_HEARTBEAT_INTERVAL_MS`,
/// `KAFKA_GROUP_INSTANCE_ID` (static membership), `KAFKA_ASSIGNMENT_STRATEGY`, `KAFKA_STATISTICS_INTERVAL_MS` and
/// `KAFKA_STRANDED_AFTER_MS` (the membership guard). The defaults are the local stack
/// of `scripts/stack`. Every consumer, producer, admin client and PostgreSQL pool a service makes comes from
/// ``consumer(clientId:groupId:topics:)``, ``producer(clientId:linger:)``, ``admin(clientId:)`` and
/// ``postgres(applicationName:poolSize:)``.
public struct InfrastructureOptions: Sendable, Equatable {
    /// The brokers, their security settings and the pass-through properties.
    public var kafka: KafkaCluster
    /// `postgresql://user[:password]@host:port/database[?options]`.
    public var databaseURL: String
    /// `DATABASE_POOL_SIZE`: when set, the size of every pool made here (over the URL's `pool_size` and the
    /// service's own size).
    public var databasePoolSize: Int?
    /// Consumer group session timeout; Tansu joins a group in about half of it.
    public var kafkaSessionTimeout: Duration
    /// Consumer group heartbeat interval.
    public var kafkaHeartbeatInterval: Duration
    /// This replica's stable member id (static membership); each consumer uses it in its own group.
    public var kafkaGroupInstanceId: String?
    /// `partition.assignment.strategy` of every consumer (nil: librdkafka's default).
    public var kafkaAssignmentStrategy: String?
    /// How often consumers report statistics (their `kafka_consumer_lag` and the membership guard read them).
    public var kafkaStatisticsInterval: Duration
    /// The membership guard's bound (`KAFKA_STRANDED_AFTER_MS`; default five session timeouts, at least 30 s).
    public var kafkaStrandedAfter: Duration

    /// Comma-separated `host:port` list.
    public var kafkaBrokers: String { kafka.bootstrapServers }

    public init(
        kafkaBrokers: String = "127.0.0.1:19092",
        databaseURL: String = "postgresql://sightscreen@127.0.0.1:55432/sightscreen",
        kafkaSessionTimeout: Duration = .seconds(6),
        kafkaHeartbeatInterval: Duration = .milliseconds(500)
    ) {
        self.kafka = KafkaCluster(bootstrapServers: kafkaBrokers)
        self.databaseURL = databaseURL
        self.kafkaSessionTimeout = kafkaSessionTimeout
        self.kafkaHeartbeatInterval = kafkaHeartbeatInterval
        self.kafkaStatisticsInterval = .seconds(5)
        self.kafkaStrandedAfter = max(.seconds(30), kafkaSessionTimeout * 5)
    }

    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        let defaults = InfrastructureOptions()
        let database = environment.string("DATABASE_URL", default: defaults.databaseURL)
        guard database.hasPrefix("postgresql://") || database.hasPrefix("postgres://") else {
            throw .invalid(variable: "DATABASE_URL", value: database, expected: "a postgresql:// URL")
        }
        self.init(
            databaseURL: database,
            kafkaSessionTimeout: try environment.milliseconds("KAFKA_SESSION_TIMEOUT_MS", default: defaults.kafkaSessionTimeout, in: 1000...300_000),
            kafkaHeartbeatInterval: try environment.milliseconds("KAFKA_HEARTBEAT_INTERVAL_MS", default: defaults.kafkaHeartbeatInterval, in: 100...60_000)
        )
        kafka = try KafkaCluster(environment)
        if environment.raw("DATABASE_POOL_SIZE") != nil {
            databasePoolSize = try environment.int("DATABASE_POOL_SIZE", default: 1, in: 1...1000)
        }
        if let instance = environment.raw("KAFKA_GROUP_INSTANCE_ID") {
            guard instance.count <= 200, !instance.contains(where: \.isWhitespace) else {
                throw .invalid(variable: "KAFKA_GROUP_INSTANCE_ID", value: instance, expected: "an id without spaces, at most 200 characters (the pod's name)")
            }
            kafkaGroupInstanceId = instance
        }
        if let strategy = environment.raw("KAFKA_ASSIGNMENT_STRATEGY") {
            kafkaAssignmentStrategy = try environment.choice("KAFKA_ASSIGNMENT_STRATEGY", default: strategy,
                                                             from: ["range", "roundrobin", "range,roundrobin", "cooperative-sticky"])
        }
        kafkaStatisticsInterval = try environment.milliseconds("KAFKA_STATISTICS_INTERVAL_MS", default: defaults.kafkaStatisticsInterval,
                                                               in: 500...300_000)
        kafkaStrandedAfter = try environment.milliseconds("KAFKA_STRANDED_AFTER_MS", default: max(.seconds(30), kafkaSessionTimeout * 5),
                                                          in: 5000...3_600_000)
    }

    /// Fails start-up on a Kafka misconfiguration that waiting cannot fix: SASL refusing the credentials or a TLS
    /// handshake failing (``KafkaConnectionError``, naming the setting to change). A cluster that merely does not answer
    /// yet is logged and start-up goes on (the readiness probe reports it until it answers).
    /// - Throws: ``KafkaConnectionError`` for bad credentials or TLS settings.
    public func verifyKafkaSettings(logger: Logger, timeout: Duration = .seconds(5)) async throws {
        let admin = try KafkaAdmin(configuration: admin(clientId: "startup-check"), logger: logger.child("kafka-check"))
        do {
            try await admin.verifyConnection(timeout: timeout)
        } catch where error.isMisconfiguration {
            throw error
        } catch {
            logger.warning("kafka does not answer yet; starting anyway", ["error": error.description])
        }
    }

    /// A consumer in `groupId` with this deployment's connection, group and statistics settings.
    public func consumer(clientId: String, groupId: String, topics: [String]) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(cluster: kafka, clientId: clientId, groupId: groupId, topics: topics)
        configuration.sessionTimeout = kafkaSessionTimeout
        configuration.heartbeatInterval = kafkaHeartbeatInterval
        configuration.statisticsInterval = kafkaStatisticsInterval
        configuration.groupInstanceId = kafkaGroupInstanceId
        configuration.assignmentStrategy = kafkaAssignmentStrategy
        configuration.strandedAfter = kafkaStrandedAfter
        return configuration
    }

    /// A producer with this deployment's connection settings.
    /// - Parameter linger: how long librdkafka batches messages (nil: ``KafkaProducerConfiguration``'s 5 ms).
    public func producer(clientId: String, linger: Duration? = nil) -> KafkaProducerConfiguration {
        var configuration = KafkaProducerConfiguration(cluster: kafka, clientId: clientId)
        if let linger { configuration.linger = linger }
        return configuration
    }

    /// An admin client with this deployment's connection settings.
    public func admin(clientId: String) -> KafkaAdminConfiguration {
        KafkaAdminConfiguration(cluster: kafka, clientId: clientId)
    }

    /// A PostgreSQL pool's settings: `DATABASE_URL` (with its query options), named `applicationName` in
    /// `pg_stat_activity` unless the URL names it, holding `DATABASE_POOL_SIZE` connections if set, else the URL's
    /// `pool_size`, else `poolSize` (the service's own).
    /// - Throws: `PostgresError.invalidConfiguration` naming what is wrong with the URL.
    public func postgres(applicationName: String, poolSize: Int) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(url: databaseURL)
        let query = URLComponents(string: databaseURL)?.queryItems ?? []
        if !query.contains(where: { $0.name == "application_name" }) { configuration.applicationName = applicationName }
        if let databasePoolSize {
            configuration.maxConnections = databasePoolSize
        } else if !query.contains(where: { $0.name == "pool_size" }) {
            configuration.maxConnections = poolSize
        }
        return configuration
    }
}
