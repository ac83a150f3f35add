import Kafka
import Runtime
import Testing

@Suite("consumer lag against Tansu", .timeLimit(.minutes(1)))
struct KafkaLagTests {
    /// Tansu's ListOffsets answers the last batch's base offset + 1, so every record goes in its own
    /// batch (each send awaited, linger 0, one message per batch) to make the end offset exact.
    @Test func lagIsProducedMinusCommitted() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let topic = try await KafkaTestSupport.makeTopic(admin, prefix: "lag", partitions: 1)
        let producer = try KafkaTestSupport.producer(oneRecordPerBatch: true)
        let produced = 9
        let committed = 4
        for index in 0..<produced {
            _ = try await producer.send(topic: topic, key: nil, value: Array("v\(index)".utf8))
        }
        try await producer.shutdown(timeout: .seconds(5))
        let group = KafkaTestSupport.unique("lag")

        var configuration = KafkaTestSupport.consumerConfiguration(group: group, topics: [topic])
        configuration.statisticsInterval = .milliseconds(250)
        let registry = MetricsRegistry()
        let consumer = try KafkaConsumer(configuration: configuration, logger: KafkaTestSupport.logger, metrics: registry)
        _ = try await KafkaTestSupport.consume(consumer, count: committed, commit: true)

        // The consumer's statistics (fetch high watermark) show the same lag; keep polling without committing.
        let deadline = ContinuousClock.now + .seconds(10)
        var statistics: [KafkaPartitionLag] = []
        while statistics.first?.lag != Int64(produced - committed) || statistics.first?.endOffset != Int64(produced) {
            guard ContinuousClock.now < deadline else {
                throw KafkaTestFailure(description: "statistics lag not \(produced - committed) within 10 s: \(statistics)")
            }
            _ = try await consumer.poll(timeout: .milliseconds(100))
            statistics = consumer.partitionLag
        }
        #expect(statistics == [KafkaPartitionLag(topic: topic, partition: 0, committed: Int64(committed), endOffset: Int64(produced),
                                                 lag: Int64(produced - committed))])
        // The consumer exports the same figure itself, labelled by its group, on the registry it was given.
        let series = "kafka_consumer_lag{group=\"\(group)\",partition=\"0\",topic=\"\(topic)\"}"
        #expect(registry.render().contains("\(series) \(produced - committed)"), "\(registry.render())")
        try await consumer.close()
        #expect(registry.render().contains("\(series) 0"), "a partition the member no longer holds reads 0 from it")

        let lag = try await admin.lag(group: group, topics: [topic], timeout: .seconds(15))
        #expect(lag == [KafkaPartitionLag(topic: topic, partition: 0, committed: Int64(committed), endOffset: Int64(produced),
                                          lag: Int64(produced - committed))])
        let offsets = try await admin.committedOffsets(group: group, topics: [topic], timeout: .seconds(15))
        #expect(offsets == [KafkaTopicPartition(topic: topic, partition: 0): Int64(committed)])
    }

    @Test func createTopicsIsIdempotentAndDescribesPartitions() async throws {
        let admin = try await KafkaTestSupport.requireBroker()
        let name = KafkaTestSupport.unique("admin")
        let spec = KafkaTopicSpec(name: name, partitions: 3, replicationFactor: 1, config: ["retention.ms": "3600000"])
        try await admin.createTopics([spec])
        try await admin.createTopics([spec])
        let description = try #require(try await admin.describeTopic(name))
        #expect(description.partitions == [0, 1, 2])
        #expect(try await admin.listTopics().contains { $0.name == name })
        let unknownGroupLag = try await admin.lag(group: KafkaTestSupport.unique("nobody"), topics: [name], timeout: .seconds(15))
        #expect(unknownGroupLag.map(\.lag) == [0, 0, 0])
        #expect(unknownGroupLag.allSatisfy { $0.committed == nil })
    }
}
