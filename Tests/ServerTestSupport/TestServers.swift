import Foundation
import Kafka
import Postgres
import Runtime
import Schema

/// A test could not run or went wrong in a way that is not an expectation: says what and how to fix it.
public struct TestEnvironmentFailure: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// The real PostgreSQL and Kafka servers the service tests run against (`scripts/stack servers`), with what
/// every such test needs: a fresh schema with all migrations, fresh topics, producers and consumers.
/// A missing server is a failure that says how to start it, never a skip.
public enum TestServers {
    public static let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        ?? PostgresConfiguration.localDefaultURL
    public static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 }
        ?? "127.0.0.1:19092"

    /// A logger that drops everything below errors (and the errors too: tests assert, they do not read logs).
    public static func quietLogger(_ label: String) -> Logger {
        Logger(label: label, minimumLevel: .error, sink: LogSink { _ in })
    }

    /// `prefix_` + 8 random hex characters: names that parallel tests never share.
    public static func unique(_ prefix: String) -> String { "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())" }

    /// A pool whose search_path is a new schema (named after `schemaPrefix`) holding every Sightscreen table.
    public static func database(schemaPrefix: String, maxConnections: Int = 3, logger: Logger) async throws -> PostgresClient {
        let schema = unique(schemaPrefix)
        do {
            let admin = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: logger)
            try await admin.execute("CREATE SCHEMA \(schema)")
            await admin.shutdown()
        } catch {
            throw TestEnvironmentFailure(
                description: "PostgreSQL not reachable at \(databaseURL): start it with scripts/stack servers (\(error))")
        }
        var configuration = try PostgresConfiguration(url: databaseURL)
        configuration.searchPath = [schema]
        configuration.maxConnections = maxConnections
        let client = PostgresClient(configuration: configuration, logger: logger)
        _ = try await PostgresMigrator(client, logger: logger).apply(SightscreenMigrations.all)
        return client
    }

    /// Checks that the broker answers, then creates a new topic named after `prefix`.
    public static func topic(_ prefix: String, partitions: Int32 = 1, logger: Logger) async throws -> String {
        try KafkaLibrary.requireMinimumVersion()
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: unique("tests-admin")),
                                   logger: logger)
        do {
            _ = try await admin.listTopics(timeout: .seconds(20))
        } catch {
            throw TestEnvironmentFailure(
                description: "Kafka broker not reachable at \(brokers): start it with scripts/stack servers (\(error))")
        }
        let name = unique(prefix).replacingOccurrences(of: "_", with: "-")
        try await admin.createTopics([KafkaTopicSpec(name: name, partitions: partitions)], timeout: .seconds(10))
        return name
    }

    /// A producer with its own client id.
    public static func producer(clientPrefix: String, messageTimeout: Duration = .seconds(15), logger: Logger) throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: unique(clientPrefix))
        configuration.messageTimeout = messageTimeout
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    /// A consumer of `topic` in `group` that starts at the earliest offset and notices a lost member quickly.
    public static func consumer(topic: String, group: String, clientPrefix: String, logger: Logger) throws -> KafkaConsumer {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, clientId: unique(clientPrefix),
                                                       groupId: group, topics: [topic])
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        return try KafkaConsumer(configuration: configuration, logger: logger)
    }
}

extension TestServers {
    /// Reads `topic` from the start with a fresh consumer group until `count` messages were read or 60 s pass;
    /// returns each message as `decode` turns it (a throwing `decode` fails the read).
    public static func read<Value>(_ count: Int, from topic: String, logger: Logger,
                                   decode: (KafkaMessage) throws -> Value) async throws -> [Value] {
        let reader = try consumer(topic: topic, group: unique("reader"), clientPrefix: "tests-reader", logger: logger)
        var values: [Value] = []
        let deadline = ContinuousClock.now + .seconds(60)
        do {
            while values.count < count, ContinuousClock.now < deadline {
                if let message = try await reader.poll(timeout: .milliseconds(200)) { values.append(try decode(message)) }
            }
        } catch {
            try? await reader.close()
            throw error
        }
        try await reader.close()
        return values
    }
}
