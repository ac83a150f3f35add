import Contracts
import DeliveryRecord
import Foundation
import Kafka
import Postgres
import Runtime
import ServerTestSupport
import SharedTestSupport
import Testing
@testable import LACoordinator

/// la-coordinator's delivery recorder against the real broker and PostgreSQL: outcomes on the topic become the record; an
/// unreadable one is parked and recorded as a gap; while the record cannot be written it falls behind, retries, and then
/// catches up with every outcome exactly once.
@Suite("la-coordinator delivery recorder")
struct DeliveryRecorderTests {
    static func outcome(_ job: String, match: String, users: [String], at: Int64) -> PushOutcome {
        let job = PushJob(jobId: job, kind: .liveActivityUpdate, matchId: match, stateSeq: 1, priority: 5, expiration: 0, relevanceScore: nil,
                          payload: #"{"aps":{"timestamp":\#(at / 1000)}}"#,
                          targets: users.map { PushTarget(token: String(repeating: "ef", count: 32), env: .production, userId: $0, deviceId: "d1") },
                          createdAt: at - 100, knownAt: at - 700)
        return PushOutcome(job: job, contentTimestamp: at / 1000, finishedAt: at, results: users.map {
            PushTargetResult(userId: $0, deviceId: "d1", token: "…efefefef", result: .accepted, status: 200, reason: nil, apnsId: nil, tries: 1, at: at)
        })
    }

    static func accepted(_ database: PostgresClient, _ match: String) async throws -> Int64 {
        try await database.query("SELECT coalesce(sum(accepted), 0)::bigint FROM push_deliveries WHERE match_id = $1", [match])
            .first?.decode(0, as: Int64.self) ?? 0
    }

    @Test("outcomes become the record; a poison outcome is parked and a gap; a write outage is retried and caught up exactly once")
    func recordsThroughFaults() async throws {
        let database = try await TestSupport.database()
        let outcomesTopic = try await TestSupport.topic("la-outcomes-rec", partitions: 1)
        let deadLetterTopic = try await TestSupport.topic("la-outcomes-dl", partitions: 1)
        var configuration = try await TestSupport.configuration(outcomesTopic: outcomesTopic)
        configuration.deadLetterTopic = deadLetterTopic
        configuration.eventsTopic = try await TestSupport.topic("la-events-rec", partitions: 1)
        configuration.tokenInvalidTopic = try await TestSupport.topic("la-invalid-rec", partitions: 1)
        configuration.eventsGroup = TestSupport.unique("la-events-rec")
        configuration.tokenInvalidGroup = TestSupport.unique("la-invalid-rec")
        let match = TestSupport.unique("rec")
        let producer = try TestSupport.producer()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await producer.send(topic: outcomesTopic, key: Array(match.utf8),
                                    value: PushOutcomeEncoder.encode(Self.outcome("e1:0:0", match: match, users: ["u1", "u2"], at: now)))
        _ = try await producer.send(topic: outcomesTopic, key: Array(match.utf8), value: Array("not an outcome".utf8))
        _ = try await producer.send(topic: outcomesTopic, key: Array(match.utf8),
                                    value: PushOutcomeEncoder.encode(Self.outcome("e2:0:0", match: match, users: ["u1"], at: now + 1000)))

        let registry = MetricsRegistry()
        let coordinator = try Coordinator(configuration: configuration, database: database, logger: TestSupport.quiet, registry: registry)
        #expect(registry.render().contains(#"delivery_record_failures_total{kind="write"} 0"#), "exported at 0 from the start")
        let running = TestSupport.run(coordinator)
        try await eventually("3 accepted pushes recorded", within: .seconds(60)) { try await Self.accepted(database, match) == 3 }
        let store = DeliveryRecordStore(database: database)
        let progress = try await store.progress(topic: outcomesTopic)
        #expect(progress.gaps.map { "\($0.from)-\($0.to)" } == ["1-1"] && progress.gaps.first?.reason.hasPrefix("unreadable") == true, "\(progress)")
        let u1 = try #require(try await store.row(matchId: match, userId: "u1", deviceId: "d1"))
        #expect(u1.accepted == 2 && u1.lastUpdate?.job == "e2:0:0" && u1.recent.map(\.job) == ["e2:0:0", "e1:0:0"])

        // The record cannot be written (every write breaks a constraint, as a full disk or a read-only replica would
        // refuse it): outcomes wait (the failures are counted), then go in once writes work again.
        try await database.execute("ALTER TABLE push_deliveries ADD CONSTRAINT test_outage CHECK (accepted < 0) NOT VALID")
        for index in 0..<3 {
            _ = try await producer.send(topic: outcomesTopic, key: Array(match.utf8),
                                        value: PushOutcomeEncoder.encode(Self.outcome("e\(3 + index):0:0", match: match, users: ["u1", "u2"],
                                                                                      at: now + 2000 + Int64(index) * 1000)))
        }
        try await eventually("a failed write counted", within: .seconds(60)) {
            PrometheusText.sum(registry.render(), metric: "delivery_record_failures_total", matching: ["kind": "write"]) >= 1
        }
        try await database.execute("ALTER TABLE push_deliveries DROP CONSTRAINT test_outage")
        try await eventually("the record caught up: 9 accepted", within: .seconds(60)) { try await Self.accepted(database, match) == 9 }
        let after = try #require(try await store.row(matchId: match, userId: "u2", deviceId: "d1"))
        #expect(after.accepted == 4 && after.sent == 4, "every outcome once, none twice: \(after)")
        #expect(PrometheusText.sum(registry.render(), metric: "delivery_record_failures_total", matching: ["kind": "decode"]) == 1)
        running.cancel()
        _ = try? await running.value
        try await producer.shutdown()
        await database.shutdown()
    }
}
