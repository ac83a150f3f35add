import Contracts
import Foundation
import Kafka
import Postgres
import Runtime
import ServerTestSupport
import Testing
@testable import LACoordinator

/// Unreadable `match.events` and `push.token-invalid` messages go to the dead-letter topic (with the
/// metric) and are committed; the valid message behind them is processed.
@Suite("la-coordinator dead letters")
struct CoordinatorDeadLetterTests {
    static let poison: [(key: String, kind: String, value: [UInt8])] = [
        ("k-not-json", "malformed_json", Array("not json".utf8)),
        ("k-schema", "unsupported_schema", Array(#"{"schema":42,"matchId":"x"}"#.utf8)),
        ("k-huge", "too_large", [UInt8](repeating: UInt8(ascii: "\""), count: 1_100_000)),
    ]

    @Test("not-JSON, wrong schema and > 1 MB messages on both topics are dead-lettered; the valid ones are processed")
    func poisonOnBothTopics() async throws {
        let database = try await TestSupport.database()
        let eventsTopic = try await TestSupport.topic("la-events-dl", partitions: 1)
        let invalidTopic = try await TestSupport.topic("la-invalid-dl", partitions: 1)
        let jobsTopic = try await TestSupport.topic("la-jobs-dl")
        let deadLetterTopic = try await TestSupport.topic("la-dead-letter", partitions: 1)
        let matchId = TestSupport.unique("dl")
        try await TestSupport.insertActive(database, matchId: matchId, users: 2)

        var producerConfiguration = KafkaProducerConfiguration(bootstrapServers: TestSupport.brokers, clientId: TestSupport.unique("la-dl"))
        producerConfiguration.additional["message.max.bytes"] = "3000000"
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: TestSupport.quiet)
        for topic in [eventsTopic, invalidTopic] {
            for message in Self.poison { _ = try await producer.send(topic: topic, key: Array(message.key.utf8), value: message.value) }
        }
        _ = try await producer.send(topic: eventsTopic, key: Array(matchId.utf8),
                                    value: try MessageCodec.encode(TestSupport.event(matchId: matchId, seq: 1)))
        let victimToken = try #require(try await database.query(
            "SELECT update_token FROM live_activities WHERE match_id = $1 AND user_id = 'u1' AND device_id = 'd0'", [matchId]).first)
            .decode(0, as: String.self)
        _ = try await producer.send(topic: invalidTopic, key: Array(matchId.utf8), value: try MessageCodec.encode(
            TokenInvalid(token: victimToken, tokenKind: .update, matchId: matchId, userId: "u1", deviceId: "d0", reason: "Unregistered",
                         apnsTimestamp: nil)))

        var configuration = try await TestSupport.configuration()
        configuration.eventsTopic = eventsTopic
        configuration.tokenInvalidTopic = invalidTopic
        configuration.deadLetterTopic = deadLetterTopic
        configuration.eventsGroup = TestSupport.unique("la-events-group")
        configuration.tokenInvalidGroup = TestSupport.unique("la-invalid-group")
        configuration.fanOut.topic = jobsTopic
        let registry = MetricsRegistry()
        let coordinator = try Coordinator(configuration: configuration, database: database, logger: TestSupport.quiet, registry: registry)
        let running = TestSupport.run(coordinator)

        // The valid event was fanned out and the valid token-invalid applied.
        let read = try await TestSupport.readJobs(topic: jobsTopic, matchId: matchId) { jobs in !jobs.isEmpty }
        #expect(read.contains { $0.job.stateSeq == 1 }, "the valid event behind the poison was fanned out")
        let deadline = ContinuousClock.now + .seconds(60)
        var status = ""
        while ContinuousClock.now < deadline, status != "ended" {
            status = try await database.query(
                "SELECT status FROM live_activities WHERE match_id = $1 AND user_id = 'u1' AND device_id = 'd0'", [matchId])
                .first!.decode(0, as: String.self)
            if status != "ended" { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(status == "ended", "the valid token-invalid behind the poison was applied")

        // Six records: three per source topic, with the right kinds.
        let records = try await Self.readDeadLetters(6, topic: deadLetterTopic)
        for topic in [eventsTopic, invalidTopic] {
            let mine = Dictionary(uniqueKeysWithValues: records.filter { $0.sourceTopic == topic }.map { ($0.key ?? "", $0) })
            for message in Self.poison {
                #expect(mine[message.key]?.kind == message.kind, "\(topic) \(message.key)")
                #expect(mine[message.key]?.payloadBytes == message.value.count)
            }
        }
        let metrics = registry.render()
        for topic in [eventsTopic, invalidTopic] {
            for message in Self.poison {
                #expect(metrics.contains(#"dead_letters_total{kind="\#(message.kind)",topic="\#(topic)"} 1"#), "\(topic) \(message.kind)")
            }
        }

        // Both groups committed every message, poison included.
        let admin = try KafkaAdmin(configuration: KafkaAdminConfiguration(bootstrapServers: TestSupport.brokers), logger: TestSupport.quiet)
        var committed: [Int64?] = []
        while ContinuousClock.now < deadline {
            committed = [
                try await admin.committedOffsets(group: configuration.eventsGroup, topics: [eventsTopic]).first?.value,
                try await admin.committedOffsets(group: configuration.tokenInvalidGroup, topics: [invalidTopic]).first?.value,
            ]
            if committed == [4, 4] { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(committed == [4, 4])
        running.cancel()
        _ = try? await running.value
        try await producer.shutdown()
        await database.shutdown()
    }

    static func readDeadLetters(_ count: Int, topic: String) async throws -> [DeadLetterRecord] {
        let records = try await TestServers.read(count, from: topic, logger: TestSupport.quiet) { message in
            let record = try MessageCodec.decode(DeadLetterRecord.self, from: message.value)
            #expect(message.keyString == record.recordKey)
            return record
        }
        #expect(records.count == count, "read \(records.count) of \(count) dead-letter records")
        return records
    }
}
