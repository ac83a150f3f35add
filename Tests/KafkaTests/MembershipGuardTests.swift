import Foundation
@testable import Kafka
import Runtime
import Testing

/// Issue 30: the rebuild the membership guard performs on a stranded member (``KafkaMembershipWatch`` decides when:
/// `KafkaMembershipWatchTests`; the decision on a real Apache Kafka broker is in docs/RELIABILITY.md). The rebuilt
/// client leaves the group, a new one subscribes, and consumption goes on from the committed offsets.
@Suite(.timeLimit(.minutes(3))) struct MembershipGuardTests {
    @Test func aRebuiltMemberRejoinsAndConsumesFromTheCommittedOffset() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "guard", partitions: 1)
        let group = KafkaTestSupport.unique("guard-group")
        let producer = try KafkaTestSupport.producer(oneRecordPerBatch: true)
        for index in 0..<3 { _ = try await producer.send(topic: topic, key: "k", value: Array("m\(index)".utf8)) }
        try await producer.shutdown()

        let registry = MetricsRegistry()
        var configuration = KafkaTestSupport.consumerConfiguration(group: group, topics: [topic])
        configuration.strandedAfter = .seconds(60)
        configuration.statisticsInterval = .seconds(1)
        let consumer = try KafkaConsumer(configuration: configuration, logger: KafkaTestSupport.logger, metrics: registry)
        let first = try await KafkaTestSupport.consume(consumer, count: 1, commit: true, timeout: .seconds(30))
        let generation = consumer.assignmentGeneration

        consumer.requestRebuild(reason: "test")
        let rest = try await KafkaTestSupport.consume(consumer, count: 2, commit: true, timeout: .seconds(60))
        #expect((first + rest).map { String(decoding: $0.value, as: UTF8.self) } == ["m0", "m1", "m2"])
        #expect(registry.counter("kafka_consumer_rebuilt_total", help: "", labels: ["group": group]).count == 1)
        #expect(consumer.assignmentGeneration > generation, "offsets staged before the rebuild are dropped")
        // The guard read the broker's view of the group meanwhile: lag 0 once everything is committed.
        let lag = registry.gauge("kafka_group_lag", help: "", labels: ["group": group, "topic": topic, "partition": "0"])
        let deadline = ContinuousClock.now + .seconds(30)
        while lag.current != 0 || registry.render().range(of: "kafka_group_lag{") == nil {
            guard ContinuousClock.now < deadline else { throw KafkaTestFailure(description: "kafka_group_lag never read 0: \(lag.current)") }
            _ = try await consumer.poll(timeout: .milliseconds(200))
        }
        try await consumer.close()
    }
}
