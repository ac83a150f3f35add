import Foundation
import Kafka
import Postgres
import Runtime
import Schema

struct ServiceTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Real servers for the detector wiring tests: a fresh schema per test, unique topics and groups.
enum ServiceTestSupport {
    static let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        ?? "postgresql://sightscreen@127.0.0.1:55432/sightscreen"
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"
    static let quiet = Logger(label: "detector-tests", minimumLevel: .error, sink: LogSink { _ in })

    static func unique(_ prefix: String) -> String { "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())" }

    /// A client on a new schema with migrations 1 and 2 applied.
    static func database() async throws -> PostgresClient {
        let schema = unique("detector")
        do {
            let admin = PostgresClient(configuration: try PostgresConfiguration(url: databaseURL), logger: quiet)
            try await admin.execute("CREATE SCHEMA \(schema)")
            await admin.shutdown()
        } catch {
            throw ServiceTestFailure(description: "PostgreSQL not reachable at \(databaseURL): start it with scripts/stack servers (\(error))")
        }
        var configuration = try PostgresConfiguration(url: databaseURL)
        configuration.searchPath = [schema]
        configuration.maxConnections = 3
        let client = PostgresClient(configuration: configuration, logger: quiet)
        _ = try await PostgresMigrator(client, logger: quiet).apply(SightscreenMigrations.all)
        return client
    }

    /// Checks the broker and creates a fresh single-partition topic.
    static func topic(_ prefix: String) async throws -> String {
        try KafkaLibrary.requireMinimumVersion()
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "detector-tests"),
                                   logger: quiet)
        do {
            _ = try await admin.listTopics(timeout: .seconds(3))
        } catch {
            throw ServiceTestFailure(description: "Kafka broker not reachable at \(brokers): start it with scripts/stack servers (\(error))")
        }
        let name = unique(prefix).replacingOccurrences(of: "_", with: "-")
        try await admin.createTopics([KafkaTopicSpec(name: name, partitions: 1)], timeout: .seconds(10))
        return name
    }

    static func producer() throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: unique("detector-test-producer"))
        configuration.messageTimeout = .seconds(15)
        return try KafkaProducer(configuration: configuration, logger: quiet)
    }

    static func consumer(topic: String, group: String) throws -> KafkaConsumer {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, clientId: unique("detector-test"),
                                                       groupId: group, topics: [topic])
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        return try KafkaConsumer(configuration: configuration, logger: quiet)
    }
}
