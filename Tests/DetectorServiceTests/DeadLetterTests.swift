import FeedHistory
import Contracts
import DeadLetter
import Detection
import Foundation
import Kafka
import Runtime
import ServerTestSupport
import Testing
@testable import Detector

/// Unreadable `sportmonks.fixtures` messages are parked on the dead-letter topic (with the metric),
/// then committed; the valid snapshot behind them is processed.
@Suite("Detector dead letters (PostgreSQL, Kafka)")
struct DetectorDeadLetterTests {
    @Test("not-JSON, wrong schema and > 1 MB snapshots go to the dead-letter topic; the next one is processed")
    func poisonSnapshots() async throws {
        let database = try await ServiceTestSupport.database()
        let input = try await ServiceTestSupport.topic("fixtures")
        let deadLetterTopic = try await ServiceTestSupport.topic("dead-letter")
        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: ServiceTestSupport.brokers,
                                                               clientId: ServiceTestSupport.unique("detector-dl"))
        producerConfiguration.additional["message.max.bytes"] = "3000000"
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: ServiceTestSupport.quiet)
        let huge = [UInt8](repeating: UInt8(ascii: "["), count: 1_100_000)
        _ = try await producer.send(topic: input, key: "k-not-json", value: Array("not json".utf8))
        _ = try await producer.send(topic: input, key: "k-schema", value: Array(#"{"schema":99,"matchId":"1"}"#.utf8))
        _ = try await producer.send(topic: input, key: "k-huge", value: huge)
        let valid = try #require(try DetectorServiceTests.snapshots(matchId: 1426312, count: 1).first)
        _ = try await producer.send(topic: input, key: "1426312", value: valid)

        let registry = MetricsRegistry()
        let recording = RecordingPublisher()
        var handler = SnapshotHandler(detector: MatchDetector(), store: DetectorStateStore(client: database), history: FeedBallStore(database: database), publisher: recording,
                                      logger: ServiceTestSupport.quiet, metrics: DetectorMetrics(registry: registry))
        handler.deadLetters = DeadLetterPublisher(producer: producer, metrics: registry, logger: ServiceTestSupport.quiet,
                                                  topic: deadLetterTopic)
        let group = ServiceTestSupport.unique("detector")
        let consumer = try ServiceTestSupport.consumer(topic: input, group: group)
        let loop = Task {
            try await DetectorLoop.service(consumer: consumer, handler: handler, logger: ServiceTestSupport.quiet,
                                   metrics: DetectorMetrics(registry: registry)).run()
        }
        let records = try await Self.readDeadLetters(3, topic: deadLetterTopic)
        // Positive signal: the group's committed offsets cover all 4 messages. (Waiting only for the
        // valid snapshot's events raced its state write and commit, which run after the publish: a
        // cancel right after the publish left it uncommitted.)
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: ServiceTestSupport.brokers, clientId: group),
                                   logger: ServiceTestSupport.quiet)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let committed = (try? await admin.committedOffsets(group: group, topics: [input], timeout: .seconds(15))) ?? [:]
            if committed.values.reduce(0, +) >= 4, !recording.events.withLock({ $0.isEmpty }) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        loop.cancel()
        _ = try? await loop.value
        #expect(!recording.events.withLock { $0 }.isEmpty, "the valid snapshot behind the poison was processed")

        let byKey = Dictionary(uniqueKeysWithValues: records.map { ($0.key ?? "", $0) })
        #expect(Set(records.map(\.sourceTopic)) == [input])
        #expect(byKey["k-not-json"]?.kind == "malformed_json")
        #expect(byKey["k-schema"]?.kind == "unsupported_schema")
        #expect(byKey["k-huge"]?.kind == "too_large")
        #expect(byKey["k-huge"]?.payloadBytes == huge.count)
        #expect(byKey["k-huge"]?.excerptBytes == Array(huge.prefix(DeadLetterRecord.maximumExcerptBytes)))
        #expect(byKey["k-not-json"]?.offset == 0 && byKey["k-huge"]?.offset == 2)
        for kind in ["malformed_json", "unsupported_schema", "too_large"] {
            #expect(registry.render().contains(#"dead_letters_total{kind="\#(kind)",topic="\#(input)"} 1"#), "metric for \(kind)")
        }
        // Every message, poison included, was committed.
        try await consumer.close()
        let again = try ServiceTestSupport.consumer(topic: input, group: group)
        #expect(try await again.poll(timeout: .seconds(8)) == nil, "offsets were committed past the poison")
        try await again.close()
        try await producer.shutdown()
        await database.shutdown()
    }

    static func readDeadLetters(_ count: Int, topic: String) async throws -> [DeadLetterRecord] {
        let records = try await TestServers.read(count, from: topic, logger: ServiceTestSupport.quiet) { message in
            let record = try MessageCodec.decode(DeadLetterRecord.self, from: message.value)
            #expect(message.keyString == record.recordKey)
            return record
        }
        #expect(records.count == count, "read \(records.count) of \(count) dead-letter records")
        return records
    }
}
