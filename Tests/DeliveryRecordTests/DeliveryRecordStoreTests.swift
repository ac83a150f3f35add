import Contracts
import DeliveryRecord
import Foundation
import LiveActivities
import Postgres
import ServerTestSupport
import Testing

/// The delivery record against the real PostgreSQL: folds are written per activity, an outcome is folded once however
/// often it is offered, gaps are recorded, history is bounded, old rows are swept, a deleted device's rows go with it.
@Suite struct DeliveryRecordStoreTests {
    static let logger = TestServers.quietLogger("delivery-record-tests")
    static let token = String(repeating: "c0", count: 32)

    static func outcome(_ job: String, kind: PushKind = .liveActivityUpdate, priority: Int = 5, seq: Int64, users: [String], result: PushResult = .accepted,
                        at: Int64, tries: Int = 1, channel: PushChannel? = nil, match: String = "m1") -> PushOutcome {
        let job = PushJob(jobId: job, kind: kind, matchId: match, stateSeq: seq, priority: priority, expiration: 0, relevanceScore: nil,
                          payload: #"{"aps":{"timestamp":\#(at / 1000)}}"#,
                          targets: users.map { PushTarget(token: token, env: .production, userId: $0, deviceId: "d1") }, createdAt: at - 500,
                          channel: channel, knownAt: at - 1000)
        let results = channel.map { [PushTargetResult(userId: "", deviceId: "", token: TokenMask.mask($0.channelId), result: result, status: 200,
                                                      reason: nil, apnsId: nil, tries: tries, at: at)] }
            ?? users.map { PushTargetResult(userId: $0, deviceId: "d1", token: TokenMask.mask(token), result: result,
                                            status: result == .accepted ? 200 : result == .refused ? 410 : nil,
                                            reason: result == .refused ? "Unregistered" : nil, apnsId: "6b1d4c2e-913a-4f0b-8e57-2dc4139a7760", tries: tries,
                                            at: result == .superseded ? nil : at) }
        return PushOutcome(job: job, contentTimestamp: at / 1000, finishedAt: at, results: results)
    }

    /// Writes `outcomes` as the recorder does: offsets `first`… of partition 0.
    @discardableResult
    static func record(_ store: DeliveryRecordStore, topic: String, first: Int64, _ outcomes: [PushOutcome]) async throws -> (rows: Int, pushes: Int) {
        try await store.record(topic: topic, batch: outcomes.enumerated().map {
            DeliveryRecordStore.Recorded(partition: 0, offset: first + Int64($0.offset), outcome: $0.element)
        })
    }

    @Test("totals add up, the last of each kind is the newest, recent is newest first; a batch offered twice is folded once")
    func foldsOnce() async throws {
        let database = try await TestServers.database(schemaPrefix: "record", logger: Self.logger)
        defer { Task { await database.shutdown() } }
        let store = DeliveryRecordStore(database: database)
        let batch = [
            Self.outcome("start:1", kind: .liveActivityStart, seq: 0, users: ["u1"], at: 1_000_000),
            Self.outcome("e1:0:0", seq: 1, users: ["u1", "u2"], at: 1_010_000, tries: 3),
            Self.outcome("e2:0:0", priority: 10, seq: 2, users: ["u1"], at: 1_020_000),
            Self.outcome("e3:0:0", seq: 3, users: ["u1"], result: .superseded, at: 1_030_000, tries: 0),
        ]
        let written = try await Self.record(store, topic: "t", first: 0, batch)
        #expect(written.rows == 2 && written.pushes == 5, "one row per activity: \(written)")
        let again = try await Self.record(store, topic: "t", first: 0, batch)
        #expect(again.pushes == 0, "the same outcomes again fold nothing")
        let elsewhere = try await Self.record(store, topic: "t", first: 500, batch)
        #expect(elsewhere.pushes == 0, "nor at other offsets (a recreated topic, a reset group): identity, not position")
        let row = try #require(try await store.row(matchId: "m1", userId: "u1", deviceId: "d1"))
        #expect(row.sent == 3 && row.accepted == 3 && row.superseded == 1 && row.retried == 2 && row.refused == 0 && row.dead == 0, "\(row)")
        #expect(row.lastStart?.job == "start:1" && row.lastUpdate?.job == "e3:0:0" && row.lastKeyEvent?.job == "e2:0:0" && row.lastEnd == nil)
        #expect(row.recent.map(\.job) == ["e3:0:0", "e2:0:0", "e1:0:0", "start:1"])
        #expect(row.lastKeyEvent?.freshnessMs == 1000 && row.lastKeyEvent?.timestamp == 1020 && row.lastKeyEvent?.apnsId == "6b1d4c2e-913a-4f0b-8e57-2dc4139a7760")
        #expect(row.recent.allSatisfy { $0.token == "…c0c0c0c0" }, "only masked tokens are stored")
        // A later batch (offsets 4…) adds to the row; its refusal is the newest.
        try await Self.record(store, topic: "t", first: 4, [Self.outcome("e4:0:0", seq: 4, users: ["u1"], result: .refused, at: 1_040_000)])
        let after = try #require(try await store.row(matchId: "m1", userId: "u1", deviceId: "d1"))
        #expect(after.refused == 1 && after.sent == 4 && after.recent.first?.result == .refused && after.lastUpdate?.job == "e4:0:0")
        let progress = try await store.progress(topic: "t")
        #expect(progress.lastFoldAt != nil && progress.gaps.map { "\($0.from)-\($0.to)" } == ["4-499"],
                "the batch offered at 500 skipped offsets 4…499: a gap, although it folded nothing new")
    }

    @Test("two sendings of one job finished in the same millisecond are both recorded; each one's message replayed is not")
    func sendingsInTheSameMillisecond() async throws {
        let database = try await TestServers.database(schemaPrefix: "record", logger: Self.logger)
        defer { Task { await database.shutdown() } }
        let store = DeliveryRecordStore(database: database)
        var first = Self.outcome("e1:0:0", priority: 10, seq: 1, users: ["u1"], at: 1_010_000)
        first.sendId = 7 << 32 | 1
        var second = first
        second.sendId = 9 << 32 | 1
        let legacy = Self.outcome("e1:0:0", priority: 10, seq: 1, users: ["u1"], at: 1_010_000)
        #expect(try await Self.record(store, topic: "t", first: 0, [first, second, first]).pushes == 2, "one batch: both sendings, the replay once")
        #expect(try await Self.record(store, topic: "t", first: 3, [second, legacy]).pushes == 1, "a sender without send ids: its own identity")
        #expect(try await Self.record(store, topic: "t", first: 5, [legacy]).pushes == 0)
        let row = try #require(try await store.row(matchId: "m1", userId: "u1", deviceId: "d1"))
        #expect(row.sent == 3 && row.accepted == 3, "\(row)")
    }

    @Test("history stays at 20 entries; an older entry never replaces a newer last delivery")
    func boundedHistory() async throws {
        let database = try await TestServers.database(schemaPrefix: "record", logger: Self.logger)
        defer { Task { await database.shutdown() } }
        let store = DeliveryRecordStore(database: database)
        try await Self.record(store, topic: "t", first: 0, [Self.outcome("refused", seq: 0, users: ["u1"], result: .refused, at: 1_999_000)])
        for batch in 0..<3 {
            let outcomes = (0..<10).map { index in
                Self.outcome("e\(batch * 10 + index)", seq: Int64(batch * 10 + index), users: ["u1"], at: 2_000_000 + Int64(batch * 10 + index) * 1000)
            }
            try await Self.record(store, topic: "t", first: Int64(1 + batch * 10), outcomes)
        }
        try await Self.record(store, topic: "t", first: 31, [Self.outcome("late", seq: 1, users: ["u1"], at: 1_500_000)])
        let row = try #require(try await store.row(matchId: "m1", userId: "u1", deviceId: "d1"))
        #expect(row.recent.count == 20 && row.accepted == 31 && row.refused == 1)
        #expect(row.lastFailure?.job == "refused" && !row.recent.contains { $0.job == "refused" }, "the refusal is kept after it left the history")
        #expect(row.lastUpdate?.job == "e29", "the late, older outcome does not replace the newest: \(String(describing: row.lastUpdate))")
    }

    @Test("offsets the topic no longer had are written as a gap; a broadcast is recorded on its channel's row")
    func gapsAndChannels() async throws {
        let database = try await TestServers.database(schemaPrefix: "record", logger: Self.logger)
        defer { Task { await database.shutdown() } }
        let store = DeliveryRecordStore(database: database)
        try await Self.record(store, topic: "t", first: 0, [Self.outcome("e1", seq: 1, users: ["u1"], at: 1_000_000)])
        let channel = PushChannel(channelId: "Y2hhbm5lbC1pZC0x", env: .production, storagePolicy: 0)
        try await Self.record(store, topic: "t", first: 10, [Self.outcome("e2:bc", seq: 2, users: [], at: 1_010_000, channel: channel)])
        let progress = try await store.progress(topic: "t")
        #expect(progress.gaps.map { "\($0.partition) \($0.from)-\($0.to)" } == ["0 1-9"])
        let channels = try await store.channelRows(matchId: "m1")
        #expect(channels.map { "\($0.deviceId) \($0.channelId ?? "-") \($0.accepted)" } == ["production …bC1pZC0x 1"])
    }

    @Test("a match's rows go once its last push is past the retention; a deleted device's rows go with it")
    func retentionAndDeletion() async throws {
        let database = try await TestServers.database(schemaPrefix: "record", logger: Self.logger)
        defer { Task { await database.shutdown() } }
        let store = DeliveryRecordStore(database: database)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await Self.record(store, topic: "t", first: 0, [
            Self.outcome("old", seq: 1, users: ["u1", "u4", "u5"], at: now - 10 * 86_400_000, match: "m-old"),
            Self.outcome("new", seq: 2, users: ["u2", "u3"], at: now),
            Self.outcome("older-of-m1", seq: 1, users: ["u6"], at: now - 10 * 86_400_000),
        ])
        let swept = try await store.sweep(before: Date().addingTimeInterval(-7 * 86_400), batchSize: 2, maxBatches: 10)
        #expect(swept == 3, "m-old's three rows, two per statement; m1 is still pushed to")
        #expect(try await store.row(matchId: "m-old", userId: "u1", deviceId: "d1") == nil)
        #expect(try await store.row(matchId: "m1", userId: "u6", deviceId: "d1") != nil, "kept with its match")
        #expect(try await store.sweep(before: Date().addingTimeInterval(-7 * 86_400), batchSize: 2, maxBatches: 10) == 0)
        try await database.execute("INSERT INTO devices (user_id, device_id, push_token) VALUES ('u2', 'd1', $1)", [Self.token])
        #expect(try await DeviceStore(database: database).delete(userId: "u2", deviceId: "d1"))
        #expect(try await store.row(matchId: "m1", userId: "u2", deviceId: "d1") == nil, "the deleted device's record is gone")
        #expect(try await store.row(matchId: "m1", userId: "u3", deviceId: "d1") != nil, "another user's is kept")
    }
}
