import Foundation
import Kafka
import Runtime
import Testing

/// `KafkaPartitionReader` against the real broker: chosen partitions from a point in time to their end, no group.
@Suite("partition reader against the broker", .timeLimit(.minutes(1)))
struct KafkaPartitionReaderTests {
    static func values(_ read: KafkaPartitionRead) -> [String] { read.messages.map { String(decoding: $0.value, as: UTF8.self) } }

    @Test func readsFromATimeToTheEndOfEachPartition() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "reader", partitions: 2)
        let producer = try KafkaTestSupport.producer()
        let reader = try KafkaPartitionReader(cluster: KafkaCluster(bootstrapServers: KafkaTestSupport.brokers), clientId: KafkaTestSupport.unique("reader"),
                                              logger: KafkaTestSupport.logger)
        #expect(try await reader.partitionCount(of: topic) == 2)
        #expect(try await reader.partitionCount(of: KafkaTestSupport.unique("missing")) == nil)
        let zero = KafkaTopicPartition(topic: topic, partition: 0)
        let one = KafkaTopicPartition(topic: topic, partition: 1)
        let old = (0..<5).map { KafkaOutgoingMessage(topic: topic, key: nil, value: Array("old-\($0)".utf8), partition: 0) }
        #expect(await producer.sendAll(old).allSatisfy { if case .success = $0 { true } else { false } })
        // The broker's timestamps have millisecond resolution: the boundary lies strictly between the two groups.
        try await Task.sleep(for: .milliseconds(20))
        let boundary = Date()
        try await Task.sleep(for: .milliseconds(20))
        let new = (0..<5).map { KafkaOutgoingMessage(topic: topic, key: nil, value: Array("new-\($0)".utf8), partition: 0) }
            + [KafkaOutgoingMessage(topic: topic, key: nil, value: Array("other".utf8), partition: 1)]
        #expect(await producer.sendAll(new).allSatisfy { if case .success = $0 { true } else { false } })

        let everything = try await reader.read([zero, one], since: Date(timeIntervalSinceNow: -60), maxBytes: 1 << 20, timeout: .seconds(20))
        #expect(everything.complete)
        #expect(Set(Self.values(everything)) == Set((0..<5).map { "old-\($0)" } + (0..<5).map { "new-\($0)" } + ["other"]))
        #expect(everything.messages.filter { $0.partition == 0 }.map(\.offset) == Array(0..<10), "in offset order")

        let recent = try await reader.read([zero], since: boundary, maxBytes: 1 << 20, timeout: .seconds(20))
        #expect(recent.complete)
        #expect(Self.values(recent) == (0..<5).map { "new-\($0)" })

        let future = try await reader.read([zero, one], since: Date(timeIntervalSinceNow: 3600), maxBytes: 1 << 20, timeout: .seconds(20))
        #expect(future.complete && future.messages.isEmpty)

        let capped = try await reader.read([zero], since: Date(timeIntervalSinceNow: -60), maxBytes: 10, timeout: .seconds(20))
        #expect(!capped.complete, "stopped at the byte cap")
        #expect(!capped.messages.isEmpty && capped.messages.count < 10)
        try await producer.shutdown(timeout: .seconds(5))
    }
}
