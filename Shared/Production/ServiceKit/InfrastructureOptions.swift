import Foundation
import Runtime

/// Where the shared infrastructure is: the Kafka brokers and the PostgreSQL database.
///
/// Read once at start from `KAFKA_BROKERS`, `DATABASE_URL`, `KAFKA_SESSION_TIMEOUT_MS` and
/// `KAFKA_HEARTBEAT_INTERVAL_MS`; the defaults are the local stack of `scripts/stack`.
public struct InfrastructureOptions: Sendable, Equatable {
    /// Comma-separated `host:port` list.
    public var kafkaBrokers: String
    /// `postgresql://user[:password]@host:port/database[?options]`.
    public var databaseURL: String
    /// Consumer group session timeout; Tansu joins a group in about half of it.
    public var kafkaSessionTimeout: Duration
    /// Consumer group heartbeat interval.
    public var kafkaHeartbeatInterval: Duration

    public init(
        kafkaBrokers: String = "127.0.0.1:19092",
        databaseURL: String = "postgresql://sightscreen@127.0.0.1:55432/sightscreen",
        kafkaSessionTimeout: Duration = .seconds(6),
        kafkaHeartbeatInterval: Duration = .milliseconds(500)
    ) {
        self.kafkaBrokers = kafkaBrokers
        self.databaseURL = databaseURL
        self.kafkaSessionTimeout = kafkaSessionTimeout
        self.kafkaHeartbeatInterval = kafkaHeartbeatInterval
    }

    public init(_ environment: EnvironmentReader) throws(ConfigurationError) {
        let defaults = InfrastructureOptions()
        let brokers = environment.string("KAFKA_BROKERS", default: defaults.kafkaBrokers)
        for broker in brokers.split(separator: ",") {
            let parts = broker.trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
                throw .invalid(variable: "KAFKA_BROKERS", value: brokers, expected: "a comma-separated list of host:port")
            }
        }
        let database = environment.string("DATABASE_URL", default: defaults.databaseURL)
        guard database.hasPrefix("postgresql://") || database.hasPrefix("postgres://") else {
            throw .invalid(variable: "DATABASE_URL", value: database, expected: "a postgresql:// URL")
        }
        self.init(
            kafkaBrokers: brokers,
            databaseURL: database,
            kafkaSessionTimeout: try environment.milliseconds("KAFKA_SESSION_TIMEOUT_MS", default: defaults.kafkaSessionTimeout, in: 1000...300_000),
            kafkaHeartbeatInterval: try environment.milliseconds("KAFKA_HEARTBEAT_INTERVAL_MS", default: defaults.kafkaHeartbeatInterval, in: 100...60_000)
        )
    }
}
