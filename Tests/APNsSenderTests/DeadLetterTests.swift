@testable import APNsSender
import Contracts
import Foundation
import Kafka
import Runtime
import Testing

/// Poison messages on the jobs topic are parked on the dead-letter topic (with the metric) and the
/// consumer keeps going: a valid job behind them is delivered and every offset is committed.
@Suite struct DeadLetterTests {
    @Test func poisonJobsGoToTheDeadLetterTopicAndTheNextJobIsDelivered() async throws {
        let mock = try SenderFixtures.mock()
        let sender = try await SenderHarness.start(mock: mock)
        let huge = [UInt8](repeating: UInt8(ascii: "{"), count: 1_100_000)
        try await sender.produceRaw(Array("not json at all".utf8), key: "k-not-json")
        try await sender.produceRaw(Array(#"{"schema":99,"jobId":"job-from-the-future"}"#.utf8), key: "k-schema-job")
        try await sender.produceRaw(Array(#"{"schema":4}"#.utf8), key: "k-schema")
        try await sender.produceRaw(huge, key: "k-huge")
        let good = SenderFixtures.job(targets: (0..<5).map { _ in SenderFixtures.target() })
        try await sender.produce([good])
        try await sender.waitForCommitted(5, timeout: .seconds(60))
        for target in good.targets { #expect(mock.deliveries(token: target.token).count == 1) }

        let records = try await DeadLetterReader.read(4, topic: sender.configuration.deadLetterTopic)
        let byKey = Dictionary(uniqueKeysWithValues: records.map { ($0.key ?? "", $0) })
        #expect(Set(records.map(\.sourceTopic)) == [sender.configuration.jobsTopic])
        #expect(byKey["k-not-json"]?.kind == "malformed_json")
        #expect(byKey["k-not-json"]?.excerptBytes == Array("not json at all".utf8))
        #expect(byKey["k-schema-job"]?.kind == "unsupported_schema")
        #expect(byKey["k-schema"]?.kind == "unsupported_schema")
        #expect(byKey["k-huge"]?.kind == "too_large")
        #expect(byKey["k-huge"]?.payloadBytes == huge.count)
        #expect(byKey["k-huge"]?.excerptBytes.count == DeadLetterRecord.maximumExcerptBytes)
        #expect(Set(records.map(\.offset)) == [0, 1, 2, 3])

        let topic = sender.configuration.jobsTopic
        #expect(sender.metrics.value(#"dead_letters_total{kind="malformed_json",topic="\#(topic)"}"#) == 1)
        #expect(sender.metrics.value(#"dead_letters_total{kind="unsupported_schema",topic="\#(topic)"}"#) == 2)
        #expect(sender.metrics.value(#"dead_letters_total{kind="too_large",topic="\#(topic)"}"#) == 1)
        try await sender.stop()
    }
}

/// Reads `DeadLetterRecord`s off a dead-letter topic from the beginning.
enum DeadLetterReader {
    static func read(_ count: Int, topic: String, timeout: Duration = .seconds(60)) async throws -> [DeadLetterRecord] {
        var configuration = KafkaConsumerConfiguration(
            bootstrapServers: SenderFixtures.brokers, clientId: SenderFixtures.unique("dead-letter-reader"),
            groupId: SenderFixtures.unique("dead-letter-reader"), topics: [topic])
        configuration.sessionTimeout = .seconds(6)
        configuration.heartbeatInterval = .milliseconds(500)
        configuration.autoOffsetReset = .earliest
        let consumer = try KafkaConsumer(configuration: configuration, logger: SenderFixtures.quietLogger)
        var records: [DeadLetterRecord] = []
        let deadline = ContinuousClock.now + timeout
        while records.count < count, ContinuousClock.now < deadline {
            if let message = try await consumer.poll(timeout: .milliseconds(200)) {
                let record = try MessageCodec.decode(DeadLetterRecord.self, from: message.value)
                #expect(message.keyString == record.recordKey)
                records.append(record)
            }
        }
        try await consumer.close()
        #expect(records.count == count, "read \(records.count) of \(count) dead-letter records within \(timeout)")
        return records
    }
}
