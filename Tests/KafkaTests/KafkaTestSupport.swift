import Foundation
import Kafka
import Runtime
import Synchronization

/// A failed precondition or wait in a Kafka test, with a message that says what to do.
struct KafkaTestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Shared helpers: broker address, unique names, clients with test timings, bounded waits.
enum KafkaTestSupport {
    static let brokers = ProcessInfo.processInfo.environment["KAFKA_BROKERS"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1:19092"

    /// Warnings and errors only (librdkafka is chatty at info); KAFKA_TEST_LOG_LEVEL=info shows more.
    static let logger = Logger(label: "kafka-tests",
                               minimumLevel: ProcessInfo.processInfo.environment["KAFKA_TEST_LOG_LEVEL"].flatMap(LogLevel.init(name:)) ?? .warning)

    /// A name no other test (or earlier run) uses.
    static func unique(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Checks the librdkafka version and that the broker answers a metadata request within 20 s (a busy machine can take seconds);
    /// returns an admin client for it.
    static func requireBroker() async throws -> KafkaAdmin {
        try KafkaLibrary.requireMinimumVersion()
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: brokers, clientId: "kafka-tests"),
                                   logger: Logger(label: "kafka-tests", minimumLevel: .error, sink: LogSink { _ in }))
        do {
            _ = try await admin.listTopics(timeout: .seconds(20))
        } catch {
            throw KafkaTestFailure(description: "Kafka broker not reachable at \(brokers): start it with scripts/stack servers (\(error))")
        }
        return admin
    }

    /// Creates a fresh topic and returns its name.
    static func makeTopic(_ admin: KafkaAdmin, prefix: String, partitions: Int32) async throws -> String {
        let name = unique(prefix)
        try await admin.createTopics([KafkaTopicSpec(name: name, partitions: partitions)], timeout: .seconds(10))
        return name
    }

    static func producer(oneRecordPerBatch: Bool = false) throws -> KafkaProducer {
        var configuration = KafkaProducerConfiguration(bootstrapServers: brokers, clientId: unique("test-producer"))
        configuration.messageTimeout = .seconds(15)
        if oneRecordPerBatch {
            configuration.linger = .zero
            configuration.additional["batch.num.messages"] = "1"
        }
        return try KafkaProducer(configuration: configuration, logger: logger)
    }

    /// Consumer settings for tests: 6 s session (Tansu joins in about half of it), 500 ms heartbeat.
    static func consumerConfiguration(group: String, topics: [String]) -> KafkaConsumerConfiguration {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: brokers, clientId: unique("test-consumer"), groupId: group, topics: topics)
        configuration.sessionTimeout = .milliseconds(6000)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        return configuration
    }

    /// Polls until `count` messages arrived (committing each after "processing" when `commit`),
    /// failing after `timeout`.
    static func consume(_ consumer: KafkaConsumer, count: Int, commit: Bool, timeout: Duration = .seconds(60)) async throws -> [KafkaMessage] {
        let deadline = ContinuousClock.now + timeout
        var messages: [KafkaMessage] = []
        while messages.count < count {
            guard ContinuousClock.now < deadline else {
                throw KafkaTestFailure(description: "received \(messages.count) of \(count) messages within \(timeout)")
            }
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                messages.append(message)
                if commit { try await consumer.commit(message) }
            }
        }
        return messages
    }

    /// Like ``consume(_:count:commit:timeout:)`` but through the consumer's `AsyncSequence`,
    /// cancelled after `timeout`.
    static func consumeSequence(_ consumer: KafkaConsumer, count: Int, timeout: Duration = .seconds(20)) async throws -> [KafkaMessage] {
        try await withThrowingTaskGroup(of: [KafkaMessage]?.self) { group in
            group.addTask {
                var messages: [KafkaMessage] = []
                for try await message in consumer.messages(pollTimeout: .milliseconds(200)) {
                    messages.append(message)
                    try await consumer.commit(message)
                    if messages.count == count { break }
                }
                return messages
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let messages = try await group.next()!, messages.count == count else {
                throw KafkaTestFailure(description: "the message sequence did not yield \(count) messages within \(timeout)")
            }
            return messages
        }
    }

    /// Polls for `duration` and returns whatever arrives (to prove nothing more comes).
    static func drain(_ consumer: KafkaConsumer, for duration: Duration) async throws -> [KafkaMessage] {
        let deadline = ContinuousClock.now + duration
        var messages: [KafkaMessage] = []
        while ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) { messages.append(message) }
        }
        return messages
    }
}

/// Collects log lines in memory (to assert on what was logged).
final class CapturedLog: Sendable {
    private let lines = LockedValue<[String]>([])

    var logger: Logger {
        Logger(label: "kafka-tests", minimumLevel: .info, sink: LogSink { [self] line in lines.withLock { $0.append(line) } })
    }

    var all: [String] { lines.withLock { $0 } }
}
