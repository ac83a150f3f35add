import Kafka
import Postgres
import Runtime
import ServerTestSupport

typealias ServiceTestFailure = TestEnvironmentFailure

/// Real servers for the detector wiring tests (`TestServers`): a fresh schema per test, unique topics and groups.
enum ServiceTestSupport {
    static let brokers = TestServers.brokers
    static let quiet = TestServers.quietLogger("detector-tests")

    static func unique(_ prefix: String) -> String { TestServers.unique(prefix) }

    /// A client on a new schema with every migration applied.
    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "detector", logger: quiet)
    }

    /// Checks the broker and creates a fresh single-partition topic.
    static func topic(_ prefix: String) async throws -> String {
        try await TestServers.topic(prefix, partitions: 1, logger: quiet)
    }

    static func producer() throws -> KafkaProducer {
        try TestServers.producer(clientPrefix: "detector-test-producer", logger: quiet)
    }

    static func consumer(topic: String, group: String) throws -> KafkaConsumer {
        try TestServers.consumer(topic: topic, group: group, clientPrefix: "detector-test", logger: quiet)
    }
}
